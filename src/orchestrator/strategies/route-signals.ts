import { escapeRegExp, type RunEventDataMap } from '../../core/index.ts';

export type Route = RunEventDataMap['intent_routed']['route'];
export type RouteSignals = RunEventDataMap['intent_routed']['signals'];

/** Verbs that ask for a change of state (English; the model decides when none is found and the request is unclear). */
const CHANGE_VERBS = [
  'add',
  'approve',
  'archive',
  'assign',
  'book',
  'buy',
  'cancel',
  'change',
  'charge',
  'close',
  'create',
  'delete',
  'deploy',
  'disable',
  'drop',
  'edit',
  'enable',
  'erase',
  'insert',
  'install',
  'invite',
  'issue',
  'merge',
  'modify',
  'move',
  'open',
  'order',
  'pay',
  'place',
  'post',
  'publish',
  'purchase',
  'refund',
  'register',
  'reject',
  'remove',
  'rename',
  'reserve',
  'reset',
  'restart',
  'revoke',
  'schedule',
  'sell',
  'send',
  'set',
  'ship',
  'submit',
  'subscribe',
  'transfer',
  'unsubscribe',
  'update',
  'upload',
  'write',
];
// The base form only: requests ask in the imperative ("buy", "please cancel", "I want to send");
// "cancelled orders", "transfers" and "shipping" describe things. After a determiner it is a noun ("the order book").
const DETERMINERS = 'a|an|the|my|your|his|her|its|our|their|this|that|these|those|each|every|any|no|last|next|open';
const CHANGE_RE = new RegExp(`(?<!\\b(?:${DETERMINERS})\\s+)\\b(${CHANGE_VERBS.join('|')})\\b`, 'gi');
/** Words that put steps in order: "then", "after that", a numbered list. */
const SEQUENCE_RE = /\b(?:then|afterwards|after that|next|finally|and also)\b|^\s*(?:\d+[.)]|[-*•])\s+/gim;
const GREETINGS = 'hi|hello|hey|thanks|thank you|good (?:morning|evening|afternoon)|who are you|what can you do';
const SMALL_TALK_RE = new RegExp(String.raw`^\s*(?:${GREETINGS})\b[\s\S]{0,40}$`, 'i');
/** Long requests usually hold several tasks. */
const LONG_CHARS = 600;

/** The cheap signals the router reads from a request, with no model call. */
export function routeSignals(input: string, tools: readonly string[]): RouteSignals {
  const lower = input.toLowerCase();
  const toolsMentioned = tools.filter((name) => mentions(lower, name));
  // A word of a tool's name the request mentions is that tool, not a verb ("order book" names getOrderBook).
  const named = new Set(toolsMentioned.flatMap(nameWords));
  const changeVerbs = [...new Set([...input.matchAll(CHANGE_RE)].map((m) => (m[1] ?? '').toLowerCase()))].filter(
    (verb) => !named.has(verb),
  );
  const steps = 1 + [...input.matchAll(SEQUENCE_RE)].length;
  return { toolsMentioned, changeVerbs, steps, chars: input.length };
}

/**
 * A route from the signals alone, or undefined when they do not settle it
 * (then a short model call decides). No tools, or small talk: a plain answer.
 * A change asked for (with a tool that changes state), several steps, three
 * or more tools named, or a long request: a plan. One or two tools named and
 * nothing to change: ReAct.
 */
export function routeBySignals(
  signals: RouteSignals,
  options: { tools: number; writeTools: number; input: string },
): { route: Route; reason: string } | undefined {
  if (options.tools === 0) return { route: 'answer', reason: 'no tools are available' };
  if (SMALL_TALK_RE.test(options.input)) return { route: 'answer', reason: 'small talk: no tool is needed' };
  if (signals.changeVerbs.length > 0 && options.writeTools > 0) {
    return {
      route: 'plan',
      reason: `asks for a change (${signals.changeVerbs.join(', ')}) and tools that change state are available`,
    };
  }
  if (signals.steps >= 3) return { route: 'plan', reason: `${signals.steps} steps in a row` };
  if (signals.toolsMentioned.length >= 3)
    return { route: 'plan', reason: `names ${signals.toolsMentioned.length} tools` };
  if (signals.chars >= LONG_CHARS) return { route: 'plan', reason: `a long request (${signals.chars} characters)` };
  if (signals.toolsMentioned.length > 0)
    return { route: 'react', reason: `a lookup with ${signals.toolsMentioned.join(', ')}` };
  return undefined;
}

/**
 * A tool is mentioned by its name, or by its name's words in order
 * ("get_spot_price" → "get spot price", "spot price").
 */
function mentions(lower: string, name: string): boolean {
  if (lower.includes(name.toLowerCase())) return true;
  const words = nameWords(name);
  const core =
    words[0] !== undefined && ['get', 'list', 'fetch', 'read', 'find', 'search', 'query', 'lookup'].includes(words[0])
      ? words.slice(1)
      : words;
  if (core.length === 0) return false;
  const phrase = core.join(' ');
  if (core.length === 1) return (core[0] ?? '').length >= 5 && new RegExp(`\\b${escapeRegExp(phrase)}`).test(lower);
  return lower.includes(phrase) || lower.includes(core.join('-')) || lower.includes(core.join('_'));
}

/** A tool name's words: "getOrderBook" and "get_order_book" → get, order, book. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}
