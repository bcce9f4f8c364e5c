import {
  isJsonObject,
  type ArgumentsError,
  type JsonObject,
  type JsonValue,
  type ParsedToolCall,
} from '../../core/index.ts';

/** At most this many steps in one plan. */
export const MAX_PLAN_STEPS = 25;

/**
 * A step as the model wrote it, before the gate has seen it. A tool step's
 * arguments: `input` when read already (an object in the plan, a call the side
 * call read); else `raw`, the text the model wrote — a string in the plan, read
 * once when the step is checked, or a call's text that could not be read, with
 * `error` saying why, for the gate to answer.
 */
export type DraftStep =
  | { kind: 'tool'; name: string; input: JsonObject; text?: string }
  | { kind: 'tool'; name: string; raw: string; error?: ArgumentsError; text?: string }
  | { kind: 'reasoning'; text: string };

/** `prose`: the reply was plain text, taken as the final answer (no plan object, no call). */
export type ReadPlan =
  { ok: true; steps: DraftStep[]; finalAnswer?: string; prose?: true } | { ok: false; error: string };

/** The plan format the model is asked for (the seed format with `actions` is read too). */
export const PLAN_FORMAT =
  '{"steps": [{"tool": "<tool name>", "arguments": {…}, "why": "<optional>"}, {"thought": "<a reasoning step>"}], ' +
  '"final_answer": "<only when no tool is needed>"}';

const FINAL_ACTIONS = new Set(['final_answer', 'finish', 'answer', 'respond']);

/**
 * A plan from a model's reply: a JSON object with `steps` (or `actions`, or
 * `plan`), each step a tool call or a reasoning step, and an optional
 * `final_answer`; else the reply's tool calls as the steps, in order; else a
 * reply with neither is the final answer itself. Anything else is an error
 * that says what to fix.
 */
export function readPlan(reply: {
  json: JsonObject | JsonValue[] | undefined;
  answer: string;
  calls: readonly ParsedToolCall[];
}): ReadPlan {
  // A bare array is the list of steps.
  const json: JsonObject | undefined = Array.isArray(reply.json) ? { steps: reply.json } : reply.json;
  const list = json === undefined ? undefined : (json['steps'] ?? json['actions'] ?? json['plan']);
  const final = json === undefined ? undefined : textOf(json['final_answer'] ?? json['finalAnswer'] ?? json['answer']);
  if (json !== undefined && (list !== undefined || final !== undefined)) {
    if (list !== undefined && !Array.isArray(list)) return { ok: false, error: '"steps" must be an array of steps' };
    const steps: DraftStep[] = [];
    let finalAnswer = final;
    for (const [i, raw] of (list ?? []).entries()) {
      const step = readStep(raw, i);
      if (typeof step === 'string') return { ok: false, error: step };
      if ('final' in step) finalAnswer ??= step.final;
      else steps.push(step);
    }
    if (steps.length > MAX_PLAN_STEPS)
      return {
        ok: false,
        error: `the plan has ${steps.length} steps; at most ${MAX_PLAN_STEPS} are allowed. Plan fewer, larger steps`,
      };
    if (steps.length === 0 && finalAnswer === undefined)
      return { ok: false, error: 'the plan has no steps and no final_answer' };
    return { ok: true, steps, ...(finalAnswer === undefined ? {} : { finalAnswer }) };
  }
  if (reply.calls.length > 0) {
    if (reply.calls.length > MAX_PLAN_STEPS)
      return { ok: false, error: `the plan has ${reply.calls.length} steps; at most ${MAX_PLAN_STEPS} are allowed` };
    return {
      ok: true,
      steps: reply.calls.map((c): DraftStep =>
        'input' in c
          ? { kind: 'tool', name: c.name, input: c.input }
          : { kind: 'tool', name: c.name, raw: c.raw, error: c.error },
      ),
    };
  }
  if (json === undefined && reply.answer !== '') return { ok: true, steps: [], finalAnswer: reply.answer, prose: true };
  return { ok: false, error: `the reply is not a plan. Reply with only a JSON object: ${PLAN_FORMAT}` };
}

function readStep(raw: JsonValue | undefined, i: number): DraftStep | { final: string } | string {
  if (typeof raw === 'string')
    return raw.trim() === '' ? `steps[${i}] is empty` : { kind: 'reasoning', text: raw.trim() };
  if (!isJsonObject(raw)) return `steps[${i}] must be an object: {"tool": …, "arguments": {…}} or {"thought": …}`;
  const name = raw['tool'] ?? raw['action'] ?? raw['name'];
  const why = textOf(raw['why'] ?? raw['purpose'] ?? raw['description']);
  if (typeof name === 'string' && name.trim() !== '') {
    const args = raw['arguments'] ?? raw['args'] ?? raw['input'] ?? raw['parameters'] ?? {};
    if (FINAL_ACTIONS.has(name.trim().toLowerCase())) {
      const text = isJsonObject(args)
        ? textOf(args['answer'] ?? args['text'] ?? args['content'] ?? args['final_answer'])
        : textOf(args);
      return text === undefined ? `steps[${i}] is a final answer without text` : { final: text };
    }
    const step = { kind: 'tool' as const, name: name.trim(), ...(why === undefined ? {} : { text: why }) };
    if (isJsonObject(args)) return { ...step, input: args };
    if (typeof args === 'string') return { ...step, raw: args };
    return `steps[${i}].arguments must be an object`;
  }
  const thought = textOf(raw['thought'] ?? raw['reasoning'] ?? raw['think'] ?? raw['note'] ?? raw['step']);
  if (thought !== undefined) return { kind: 'reasoning', text: thought };
  return `steps[${i}] names no tool ("tool": "<name>") and has no "thought"`;
}

function textOf(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
