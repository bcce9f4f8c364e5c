import type { Envelope } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES } from './envelope.ts';
import { readBlock } from './xml-block.ts';
import { isCallOpener } from './xml-calls.ts';
import type { Read, Scope } from './xml-envelope.ts';
import { GLM_KEY, PARAMETER, XML_BLOCK_NAMES } from './xml-families.ts';
import { lexTags } from './xml-grammar.ts';
import { readOrphanCalls, readOrphanGlm, readOrphanParameters } from './xml-orphans.ts';

/**
 * The XML-like families (Hermes/Qwen, Granite, Qwen3-Coder, Llama function
 * tags, GLM, MiniMax, DeepSeek V3.2 DSML, Anthropic-style), read by one
 * grammar from one table of tags (xml-families.ts). Blocks are read with what
 * they hold; a call is also recognised from its inner markers alone, so a
 * lost opener or a broken closer costs a repair, not the call.
 */

export function findXmlCalls(text: string): Envelope[] {
  const envelopes: Envelope[] = [];
  if (!text.includes('<')) return envelopes;
  const scope: Scope = { text, tags: lexTags(text) };
  const { tags } = scope;
  let i = 0;
  for (let tag = tags[i]; tag !== undefined && envelopes.length < DEFAULT_MAX_ENVELOPES; tag = tags[i]) {
    let read: Read = { next: i + 1 };
    if (!tag.closing && !tag.sentinel && XML_BLOCK_NAMES.has(tag.local)) read = readBlock(scope, i, false);
    else if (isCallOpener(tag)) read = readOrphanCalls(scope, i);
    else if (tag.local === GLM_KEY && !tag.closing) read = readOrphanGlm(scope, i);
    else if (tag.local === PARAMETER && !tag.closing) read = readOrphanParameters(scope, i);
    if (read.envelope !== undefined) envelopes.push(read.envelope);
    i = Math.max(read.next, i + 1);
  }
  return envelopes;
}

/** Finders of the tag families. */
export const XML_FINDERS: readonly ((text: string) => Envelope[])[] = [findXmlCalls];

/**
 * Text that starts a call in one of these families, inner markers included
 * (a call may come without its outer opener): the stream filter holds the
 * rest of the turn from there.
 */
export const XML_STREAM_MARKERS: readonly string[] = [
  '<tool_call>',
  '<tool_calls>',
  '<|tool_call|>',
  '<function=',
  '<minimax:tool_call>',
  '<invoke name=',
  '<function_calls>',
  '<｜DSML｜function_calls>',
  '<｜DSML｜invoke',
  '<|DSML|function_calls>',
  '<|DSML|invoke',
  '<arg_key>',
  '<parameter=',
  '<parameter name=',
];
