import type { ArgumentGrammar, CallFormat, NameSlot, TagSyntax } from '../formats/call-format.ts';
import { dropEmptyTags, syntaxPieces } from './tag-syntax.ts';
import { balancedEnd, findArguments } from './argument-grammar.ts';
import { commonPrefix, commonSuffix, isClosedToken, markerPieces, snapBack, snapForward } from './text-diff.ts';

/** The model's text for one, two (and three) calls, with what was written into them. */
export interface CallRenders {
  names: readonly string[];
  ids: readonly string[];
  probe: { key: string; value: string };
  /** Text for one call (names[0]). */
  one: string;
  /** Text for two calls (names[0], names[1]), when the template renders more than one. */
  two?: string;
}

export type LayoutResult =
  | { ok: true; format: Omit<CallFormat, 'id' | 'origin' | 'reasoning'>; notes: string[] }
  | { ok: false; reason: string };

/** Digits vary between calls (indices, ids); compare texts with them levelled. */
function level(text: string): string {
  return text.replace(/[0-9]/g, '0');
}

function once(text: string, needle: string): number {
  const at = text.indexOf(needle);
  return at >= 0 && text.indexOf(needle, at + needle.length) < 0 ? at : -1;
}

interface Split {
  sectionBegin: string;
  sectionEnd: string;
  separator: string;
  head: string;
  tail: string;
  /** The second call's text before its name, to tell varying pieces from markers. */
  secondHead?: string;
  secondTail?: string;
}

/**
 * Two calls are `X A M B Y`: `M` is the first call's tail, the separator and
 * the second call's head. The tail is what `M` and `Y` share at their start,
 * the head what `M` and `X` share at their end; what is left of `X` and `Y`
 * belongs to the whole section.
 */
function splitTwo(two: string, a: string, b: string): Split | undefined {
  const at = once(two, a);
  const bt = once(two, b);
  if (at < 0 || bt < 0 || bt < at) return undefined;
  const x = two.slice(0, at);
  const m = two.slice(at + a.length, bt);
  const y = two.slice(bt + b.length);
  const tailLen = snapBack(m, commonPrefix(level(m), level(y)));
  const rest = m.slice(tailLen);
  const headLen = rest.length - snapForward(rest, rest.length - commonSuffix(level(rest), level(x)));
  return {
    sectionBegin: x.slice(0, x.length - headLen),
    sectionEnd: y.slice(tailLen),
    separator: rest.slice(0, rest.length - headLen).trim(),
    head: x.slice(x.length - headLen),
    tail: m.slice(0, tailLen),
    secondHead: rest.slice(rest.length - headLen),
    secondTail: y.slice(0, tailLen),
  };
}

/** What two calls' texts share at the end (a marker), dropping what varies before it (an index, an id). */
function sharedEnd(first: string, second: string | undefined): string {
  if (second === undefined || first === second) return first;
  return first.slice(snapForward(first, first.length - commonSuffix(first, second)));
}

function sharedStart(first: string, second: string | undefined): string {
  if (second === undefined || first === second) return first;
  return first.slice(0, snapBack(first, commonPrefix(first, second)));
}

/** `functions.get_weather`: the reader strips such namespaces from names itself. */
const NAMESPACE = /[A-Za-z_]+\.$/;

/** The tags in the arguments' own syntax, when it is not plain XML: whole tags are markers. */
function syntaxOf(grammar: ArgumentGrammar): TagSyntax | undefined {
  return grammar.grammar === 'xml' ? grammar.parameters.syntax : undefined;
}

function piecesOf(text: string, syntax: TagSyntax | undefined): string[] {
  return syntax === undefined ? markerPieces(text) : syntaxPieces(text, syntax);
}

/** `" index="1"<|sep|>`: the name is an attribute, and more attributes follow it before the tag ends. */
const MORE_ATTRIBUTES = /^(["'])((?:\s+[A-Za-z_][\w:.-]*\s*=\s*(?:"[^"]*"|'[^']*'))+)\s*(\S+)$/;

function endPieces(rest: string, syntax?: TagSyntax): { argumentsEnd?: string; end?: string } {
  const pieces = piecesOf(rest, syntax);
  const last = pieces.at(-1);
  if (last === undefined) return {};
  const before = rest.slice(0, rest.lastIndexOf(last)).trim();
  return before === '' ? { end: last } : { argumentsEnd: before, end: last };
}

/** Reads section, call envelope, name slot and argument grammar off the renders. */
export function readCallLayout(renders: CallRenders): LayoutResult {
  const notes: string[] = [];
  const [a, b] = renders.names;
  if (a === undefined || b === undefined) return { ok: false, reason: 'internal: two probe names are needed' };
  if (once(renders.one, a) < 0)
    return {
      ok: false,
      reason:
        `the template does not write the tool's name once in the ` +
        `call (rendered: ${JSON.stringify(renders.one.slice(0, 200))})`,
    };
  let split = renders.two === undefined ? undefined : splitTwo(renders.two, a, b);
  if (split === undefined) {
    notes.push('the template renders one call per turn; the separator between calls is not known');
    const at = once(renders.one, a);
    split = {
      sectionBegin: '',
      sectionEnd: '',
      separator: '',
      head: renders.one.slice(0, at),
      tail: renders.one.slice(at + a.length),
    };
  }
  let { head, tail } = split;
  let secondHead = split.secondHead;
  let secondTail = split.secondTail;
  for (const id of renders.ids) {
    head = head.replace(id, '\u0000');
    tail = tail.replace(id, '\u0000');
    secondHead = secondHead?.replace(id, '\u0000');
    secondTail = secondTail?.replace(id, '\u0000');
  }
  let sectionBegin = split.sectionBegin.trim();
  let sectionEnd = split.sectionEnd.trim();
  let separator = split.separator;
  let list = false;
  if (
    sectionBegin.endsWith('[') &&
    (sectionEnd.startsWith(']') || sectionEnd === '') &&
    (separator === ',' || renders.two === undefined)
  ) {
    list = true;
    sectionBegin = sectionBegin.slice(0, -1).trim();
    sectionEnd = sectionEnd.slice(1).trim();
    separator = '';
  }
  if (sectionBegin === '' && sectionEnd !== '')
    notes.push(
      `the calls are followed by ${JSON.stringify(sectionEnd)}, which opens nothing; it is not part of the format`,
    );
  const section: CallFormat['section'] =
    sectionBegin === ''
      ? undefined
      : sectionEnd === ''
        ? { begin: sectionBegin }
        : { begin: sectionBegin, end: sectionEnd };

  const found = findArguments(tail.replace('\u0000', ''), renders.probe);
  if (found === undefined)
    return {
      ok: false,
      reason:
        `the arguments ${JSON.stringify({ [renders.probe.key]: renders.probe.value })} are not ` +
        `written in a grammar toolgate reads (after the name: ${JSON.stringify(tail.slice(0, 200))})`,
    };
  const cleanTail = tail.replace('\u0000', '');
  const argsText = { before: cleanTail.slice(0, found.start), after: cleanTail.slice(found.end) };
  const syntax = syntaxOf(found.grammar);
  if (syntax !== undefined && section !== undefined) section.begin = dropEmptyTags(section.begin, syntax);

  const base = {
    ...(section === undefined ? {} : { section }),
    ...(separator === '' ? {} : { separator }),
    ...(list ? { list } : {}),
    arguments: found.grammar,
  };
  // Name inside a JSON object: `{"name": "X", "arguments": {…}}` or `{"X": {…}}`.
  const fieldKey = /"([^"]+)"\s*:\s*"$/.exec(head);
  const keyOpen = /\{\s*"$/.exec(head);
  if (fieldKey !== null || (keyOpen !== null && /^"\s*:/.test(tail))) {
    const objStart = fieldKey !== null ? head.lastIndexOf('{', fieldKey.index) : (keyOpen?.index ?? -1);
    const unit = head + a + cleanTail;
    const objEnd = balancedEnd(unit, objStart, ['{', '}']);
    if (objStart < 0 || objEnd < 0)
      return { ok: false, reason: 'the call looks like a JSON object but its braces do not balance' };
    let name: NameSlot = { slot: 'key' };
    if (fieldKey !== null) {
      const argumentsKey = /"([^"]+)"\s*:\s*$/.exec(argsText.before)?.[1];
      if (argumentsKey === undefined || fieldKey[1] === undefined)
        return {
          ok: false,
          reason:
            `the call's JSON object has no key for its arguments next to ` +
            `the name (${JSON.stringify(unit.slice(objStart, objEnd))})`,
        };
      name = { slot: 'field', nameKey: fieldKey[1], argumentsKey };
    }
    const ends = endPieces(unit.slice(objEnd), syntax);
    const begin = head.slice(0, objStart).trim();
    return {
      ok: true,
      notes,
      format: {
        ...base,
        call: { begin, ...(ends.end === undefined ? {} : { end: ends.end }) },
        name,
        ...(ends.argumentsEnd === undefined ? {} : { argumentsEnd: ends.argumentsEnd }),
      },
    };
  }
  if (found.grammar.grammar === 'key_value' && argsText.before.trim() === '') {
    const ends = endPieces(argsText.after, syntax);
    const begin = head.trim();
    return {
      ok: true,
      notes,
      format: {
        ...base,
        call: { begin, ...(ends.end === undefined ? {} : { end: ends.end }) },
        name: { slot: 'call' },
        ...(ends.argumentsEnd === undefined ? {} : { argumentsEnd: ends.argumentsEnd }),
      },
    };
  }
  // Name between markers.
  let beforeName = sharedEnd(head, secondHead).replace('\u0000', '');
  let callBegin: string;
  const idAt = head.indexOf('\u0000');
  if (idAt >= 0) {
    callBegin = head.slice(0, idAt).trim();
    beforeName = head.slice(idAt + 1).trim();
    notes.push('the call id between the call opener and the name is not part of the format');
  } else {
    const prefix = sharedStart(head, secondHead);
    if (prefix !== head)
      notes.push(
        `text that varies between calls before the name ` +
          `(${JSON.stringify(head.slice(prefix.length, head.length - beforeName.length))}) is not part of the format`,
      );
    const namespace = NAMESPACE.exec(beforeName);
    if (namespace !== null) {
      notes.push(`the name's prefix ${JSON.stringify(namespace[0])} is left to name cleaning`);
      beforeName = beforeName.slice(0, namespace.index);
    }
    const pieces = piecesOf(beforeName, syntax);
    const last = pieces.at(-1);
    if (last !== undefined && !isClosedToken(last) && pieces.length > 1) {
      callBegin = beforeName.slice(0, beforeName.lastIndexOf(last)).trim();
      beforeName = last;
    } else {
      callBegin = beforeName.trim();
      beforeName = '';
    }
  }
  const afterRaw = argsText.before;
  const tailId = tail.indexOf('\u0000');
  let afterName = tailId >= 0 && tailId <= found.start ? cleanTail.slice(tailId, found.start) : afterRaw;
  const attributes = /=["']$/.test(head) ? MORE_ATTRIBUTES.exec(afterRaw.trim()) : null;
  let tagEnd: string | undefined;
  if (attributes?.[1] !== undefined && attributes[3] !== undefined) {
    afterName = attributes[1];
    tagEnd = attributes[3];
    notes.push(
      `the attributes after the name (${JSON.stringify((attributes[2] ?? '').trim())}) ` +
        `are skipped up to ${JSON.stringify(tagEnd)}`,
    );
  } else if (secondTail !== undefined) {
    const secondArgs = findArguments(secondTail.replace('\u0000', ''), renders.probe);
    if (secondArgs !== undefined)
      afterName = sharedEnd(afterName, secondTail.replace('\u0000', '').slice(0, secondArgs.start));
  }
  afterName = afterName.replace(/^:\d+/, '').trim();
  if (afterName !== afterRaw.trim() && tagEnd === undefined)
    notes.push('an index or id between the name and the arguments is not part of the format');
  if (callBegin === '' && section === undefined)
    return { ok: false, reason: `nothing marks where a call starts (the name follows ${JSON.stringify(head)})` };
  const ends = endPieces(argsText.after, syntax);
  const name: NameSlot = {
    slot: 'marker',
    ...(beforeName.trim() === '' ? {} : { before: beforeName.trim() }),
    ...(afterName === '' ? {} : { after: afterName }),
    ...(tagEnd === undefined ? {} : { tagEnd }),
  };
  return {
    ok: true,
    notes,
    format: {
      ...base,
      call: { begin: callBegin, ...(ends.end === undefined ? {} : { end: ends.end }) },
      name,
      ...(ends.argumentsEnd === undefined ? {} : { argumentsEnd: ends.argumentsEnd }),
    },
  };
}
