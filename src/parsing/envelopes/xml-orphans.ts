import type { RepairKind } from '../types.ts';
import type { Payload } from './envelope.ts';
import { PARAMETER, XML_BLOCK_NAMES } from './xml-families.ts';
import { readGlmPairs } from './xml-params.ts';
import { bodyKind, chooseFamily, envelope, GLM_NAME_RE, mergeCalls, readCalls } from './xml-envelope.ts';
import type { Read, Scope } from './xml-envelope.ts';

/**
 * Calls outside any block, recognised from their inner markers: a call
 * element alone (`<function=NAME>…</function>`), or calls followed by the
 * closer of a block whose opener was lost.
 */

/** A call element outside any block: alone, or followed by the closer of the block whose opener was lost. */
export function readOrphanCalls(scope: Scope, i: number): Read {
  const { text, tags } = scope;
  const cached = scope.run?.from === i ? scope.run.calls : undefined;
  const calls = cached ?? readCalls(scope, i, { end: text.length, inBlock: false });
  delete scope.run;
  const last = calls.at(-1);
  const first = calls[0];
  if (first === undefined || last === undefined) return { next: i + 1 };
  const closer = tags[last.next];
  const start = tags[i]?.start ?? 0;
  if (
    closer !== undefined &&
    closer.closing &&
    XML_BLOCK_NAMES.has(closer.local) &&
    text.slice(last.end, closer.start).trim() === ''
  ) {
    const repairs = new Set<RepairKind>(['missing_opener']);
    if (closer.broken) repairs.add('broken_closer');
    const tagsSeen = [closer];
    const payloads = mergeCalls(calls, repairs, tagsSeen);
    const family = chooseFamily(closer, first.open, bodyKind(first));
    return envelope(scope, {
      family,
      span: { start, end: closer.end },
      payloads,
      unclosed: false,
      repairs,
      tags: tagsSeen,
      next: last.next + 1,
    });
  }
  // Alone: one envelope per call. An unclosed tag around unreadable text is prose.
  const call = first;
  const second = calls[1];
  if (second !== undefined) scope.run = { from: call.next, calls: calls.slice(1) };
  const opener = call.open;
  if (call.payload.kind === 'malformed' && (!call.closed || opener.local === 'invoke')) return { next: i + 1 };
  const repairs = new Set<RepairKind>(call.repairs);
  const family = chooseFamily(undefined, opener, bodyKind(call));
  // A family that always writes a block around its calls lost its opener (Llama's bare tags are native).
  if (family.blocks.length > 0) repairs.add('missing_opener');
  const unclosed = !call.closed && call.payload.kind === 'named' && call.payload.reachesEnd;
  return envelope(scope, {
    family,
    span: { start, end: call.end },
    payloads: [call.payload],
    unclosed,
    repairs,
    tags: [...call.tags],
    next: call.next,
  });
}

/** GLM's `NAME` + `<arg_key>` pairs + `</tool_call>` with the opener lost: the name must start its line. */
export function readOrphanGlm(scope: Scope, i: number): Read {
  const { text, tags } = scope;
  const key = tags[i];
  if (key === undefined) return { next: i + 1 };
  let nameEnd = key.start;
  while (nameEnd > 0 && nameEnd > key.start - 4 && /[ \t\r\n]/.test(text.charAt(nameEnd - 1))) nameEnd -= 1;
  let nameStart = nameEnd;
  while (nameStart > 0 && nameEnd - nameStart < 128 && /[\w.-]/.test(text.charAt(nameStart - 1))) nameStart -= 1;
  const name = text.slice(nameStart, nameEnd);
  const before = text.charAt(nameStart - 1);
  if (!GLM_NAME_RE.test(name) || (nameStart > 0 && before !== '\n' && before !== '>')) return { next: i + 1 };
  let j = i;
  while (j < tags.length && (tags[j]?.sentinel === true || tags[j]?.local.startsWith('arg_') === true)) j += 1;
  const closer = tags[j];
  if (closer === undefined || !closer.closing || closer.local !== 'tool_call') return { next: i + 1 };
  const read = readGlmPairs(text, tags, { from: i, end: closer.start });
  if (read.count === 0) return { next: i + 1 };
  const repairs = new Set<RepairKind>([...read.repairs, 'missing_opener']);
  if (closer.broken) repairs.add('broken_closer');
  const payload: Payload = {
    kind: 'named',
    name,
    args: { kind: 'object', value: read.args },
    span: { start: nameStart, end: closer.end },
    reachesEnd: false,
  };
  return envelope(scope, {
    family: chooseFamily(closer, undefined, 'glm'),
    span: payload.span,
    payloads: [payload],
    unclosed: false,
    repairs,
    tags: [closer, ...read.tags],
    next: j + 1,
  });
}

/**
 * `<parameter …>` elements outside any call, closed by a call's closer
 * (`</invoke>`, `</function>`): the call's opener was lost (a client
 * rendered it as text). Which tool is not certain, so it is no call; the
 * model is told the opener is missing rather than nothing being said.
 */
export function readOrphanParameters(scope: Scope, i: number): Read {
  const { tags } = scope;
  let j = i;
  while (j < tags.length && (tags[j]?.sentinel === true || tags[j]?.local === PARAMETER)) j += 1;
  const closer = tags[j];
  if (closer === undefined || !closer.closing || (closer.local !== 'invoke' && closer.local !== 'function'))
    return { next: i + 1 };
  const first = tags[i];
  if (first === undefined) return { next: i + 1 };
  const block = tags[j + 1];
  const blockCloser =
    block !== undefined &&
    block.closing &&
    XML_BLOCK_NAMES.has(block.local) &&
    scope.text.slice(closer.end, block.start).trim() === ''
      ? block
      : undefined;
  const end = blockCloser?.end ?? closer.end;
  const opener = closer.local === 'invoke' ? `<${closer.ns}invoke name="TOOL">` : '<function=TOOL>';
  const payload: Payload = {
    kind: 'malformed',
    span: { start: first.start, end },
    message:
      `Parameters with no call around them: at position ${first.start} expected ` +
      `${opener} before the first parameter (the call's opener is missing)`,
  };
  const family = chooseFamily(blockCloser, closer, 'parameters');
  return envelope(scope, {
    family,
    span: { start: first.start, end },
    payloads: [payload],
    unclosed: false,
    repairs: new Set(),
    tags: tags.slice(i, j + (blockCloser === undefined ? 1 : 2)),
    next: j + (blockCloser === undefined ? 1 : 2),
  });
}
