import { DEFAULT_MAX_ENVELOPES, indexInTagHead, skipSpace } from '../envelopes/envelope.ts';
import type { Envelope, Payload } from '../envelopes/envelope.ts';
import type { RepairKind } from '../types.ts';
import type { CallFormat } from './call-format.ts';
import { isDistinctive, makeHitFinder, nameEnd, nameStart, scanBalanced, skipAttributes } from './scan.ts';

/**
 * The generic reader of a format given as data: finds its envelopes
 * (section, calls, separators) and cuts each call into its name and its
 * argument text. The arguments are read later, with the tools' schemas
 * (resolve-format-call.ts). Linear: every marker is searched for once per
 * pass (makeHitFinder), brackets are scanned once, and a call's arguments
 * never run past its closer.
 */

type AnchorKind = 'section' | 'call' | 'before' | 'after';

interface Anchor {
  kind: AnchorKind;
  pos: number;
  end: number;
}

/** The envelope being read: whether it is a section (not a lone call), and the repairs made to it. */
interface EnvelopeScope {
  inSection: boolean;
  repairs: Set<RepairKind>;
}

interface CallRead {
  payload: Payload;
  end: number;
  /** The call's own markers ended it properly; false: nothing after it can be trusted. */
  ok: boolean;
}

/** `code` form of a marker, for messages. */
export function quoted(marker: string): string {
  return `\`${marker}\``;
}

function nonEmpty(marker: string | undefined): string | undefined {
  return marker === undefined || marker.trim() === '' ? undefined : marker.trim();
}

class FormatScanner {
  private readonly text: string;
  private readonly f: CallFormat;
  private readonly sectionBegin: string | undefined;
  private readonly sectionEnd: string | undefined;
  private readonly callBegin: string | undefined;
  private readonly callEnd: string | undefined;
  private readonly before: string | undefined;
  private readonly after: string | undefined;
  private readonly tagEnd: string | undefined;
  private readonly argsEnd: string | undefined;
  private readonly separator: string | undefined;
  private readonly hits = new Map<string, (from: number) => number>();
  /** Calls left to read in the whole text: a flood of openers costs a bounded number of calls, not one per opener. */
  private callsLeft = DEFAULT_MAX_ENVELOPES;

  constructor(text: string, format: CallFormat) {
    this.text = text;
    this.f = format;
    this.sectionBegin = nonEmpty(format.section?.begin);
    this.sectionEnd = nonEmpty(format.section?.end);
    this.callBegin = nonEmpty(format.call.begin);
    this.callEnd = nonEmpty(format.call.end);
    this.before = format.name.slot === 'marker' ? nonEmpty(format.name.before) : undefined;
    this.after = format.name.slot === 'marker' ? nonEmpty(format.name.after) : undefined;
    this.tagEnd = format.name.slot === 'marker' ? nonEmpty(format.name.tagEnd) : undefined;
    this.argsEnd = nonEmpty(format.argumentsEnd);
    this.separator = nonEmpty(format.separator);
  }

  private hit(marker: string, from: number): number {
    let finder = this.hits.get(marker);
    if (finder === undefined) {
      finder = makeHitFinder(this.text, marker);
      this.hits.set(marker, finder);
    }
    return finder(from);
  }

  /** The markers that start an envelope: the section, a call, or (opener eaten) a distinctive inner marker. */
  private anchorMarkers(): { kind: AnchorKind; marker: string }[] {
    const out: { kind: AnchorKind; marker: string }[] = [];
    if (this.sectionBegin !== undefined) out.push({ kind: 'section', marker: this.sectionBegin });
    if (this.callBegin !== undefined) out.push({ kind: 'call', marker: this.callBegin });
    if (isDistinctive(this.before)) out.push({ kind: 'before', marker: this.before });
    else if (this.before === undefined && isDistinctive(this.after)) out.push({ kind: 'after', marker: this.after });
    return out.filter(
      (a) =>
        a.kind === 'section' || a.kind === 'call' || (a.marker !== this.callBegin && a.marker !== this.sectionBegin),
    );
  }

  private nextAnchor(from: number, markers: readonly { kind: AnchorKind; marker: string }[]): Anchor | undefined {
    let best: Anchor | undefined;
    for (const { kind, marker } of markers) {
      const pos = this.hit(marker, from);
      if (pos >= 0 && (best === undefined || pos < best.pos)) best = { kind, pos, end: pos + marker.length };
    }
    return best;
  }

  findAll(): Envelope[] {
    const markers = this.anchorMarkers();
    const out: Envelope[] = [];
    let cursor = 0;
    while (out.length < DEFAULT_MAX_ENVELOPES && this.callsLeft > 0) {
      const anchor = this.nextAnchor(cursor, markers);
      if (anchor === undefined) break;
      const env = this.readEnvelope(anchor);
      if (env === undefined) {
        cursor = anchor.end;
        continue;
      }
      out.push(env);
      cursor = Math.max(env.span.end, anchor.end);
    }
    return out;
  }

  private at(marker: string | undefined, pos: number): boolean {
    return marker !== undefined && this.text.startsWith(marker, pos);
  }

  /** Whether another call of the same envelope starts at `pos`. */
  private callStartsAt(pos: number, inSection: boolean): boolean {
    if (pos >= this.text.length) return false;
    if (this.callBegin !== undefined) return this.at(this.callBegin, pos);
    return inSection && !this.at(this.sectionEnd, pos);
  }

  private readEnvelope(anchor: Anchor): Envelope | undefined {
    const text = this.text;
    const repairs = new Set<RepairKind>();
    const inSection = anchor.kind === 'section';
    if (!inSection && this.sectionBegin !== undefined) repairs.add('missing_opener');
    if (anchor.kind === 'before' || anchor.kind === 'after') repairs.add('missing_opener');
    let start = anchor.pos;
    if (anchor.kind === 'after') {
      start = nameStart(text, anchor.pos);
      if (start === anchor.pos) return undefined;
    }
    const payloads: Payload[] = [];
    let pos = inSection ? anchor.end : anchor.pos;
    let first = !inSection;
    let unclosed = false;
    const scope: EnvelopeScope = { inSection, repairs };
    while (this.callsLeft > 0) {
      let call: CallRead;
      if (first) {
        first = false;
        call =
          anchor.kind === 'call'
            ? this.readCall(anchor.pos, anchor.end, scope)
            : this.readOrphan(anchor, start, repairs);
      } else {
        const i = skipSpace(text, pos);
        const orphan = inSection ? this.orphanAt(i) : undefined;
        if (orphan !== undefined)
          call = this.readOrphan(orphan, orphan.kind === 'after' ? i : orphan.pos, repairs.add('missing_opener'));
        else if (this.callStartsAt(i, inSection)) call = this.readCall(i, i + (this.callBegin?.length ?? 0), scope);
        else break;
      }
      const progressed = call.end > pos;
      payloads.push(call.payload);
      this.callsLeft -= 1;
      pos = Math.max(pos, call.end);
      if (!call.ok || !progressed || pos >= text.length) break;
      const j = skipSpace(text, pos);
      const k = this.at(this.separator, j) ? skipSpace(text, j + (this.separator?.length ?? 0)) : j;
      if (!this.callStartsAt(k, inSection)) break;
      pos = k;
    }
    const k = skipSpace(text, pos);
    if (this.at(this.sectionEnd, k)) {
      pos = k + (this.sectionEnd?.length ?? 0);
      if (!inSection) repairs.add('missing_opener');
    } else if (inSection && this.sectionEnd !== undefined) {
      repairs.add('missing_closer');
      unclosed = k >= text.length;
    }
    if (payloads.length === 0) {
      payloads.push({
        kind: 'malformed',
        span: { start: anchor.pos, end: pos },
        message: `Expected a call after ${quoted(this.sectionBegin ?? '')}`,
      });
    }
    return {
      family: 'format',
      format: this.f.id,
      span: { start, end: pos },
      strong: true,
      payloads,
      unclosed,
      repairs: [...repairs],
    };
  }

  /** Inside a section, a call whose own opener was eaten: its `before` marker, or a name then its `after` marker. */
  private orphanAt(pos: number): Anchor | undefined {
    if (this.callBegin === undefined || this.at(this.callBegin, pos)) return undefined;
    if (this.before !== undefined && this.at(this.before, pos))
      return { kind: 'before', pos, end: pos + this.before.length };
    if (this.before !== undefined || this.after === undefined) return undefined;
    const end = nameEnd(this.text, pos);
    return end > pos && this.at(this.after, end)
      ? { kind: 'after', pos: end, end: end + this.after.length }
      : undefined;
  }

  /** A call whose opener was eaten: found from its inner marker (`<function=`, or `[ARGS]` after its name). */
  private readOrphan(anchor: Anchor, start: number, repairs: Set<RepairKind>): CallRead {
    if (anchor.kind === 'before') return this.readCall(anchor.pos, anchor.pos, { inSection: false, repairs });
    const name = this.text.slice(start, anchor.pos);
    return this.readArguments(
      { start, argsFrom: anchor.end, name, after: anchor.kind === 'after' ? (this.after ?? '') : '', inSection: false },
      repairs,
    );
  }

  /** One call from its opener at `start` (its body from `from`). */
  private readCall(start: number, from: number, scope: EnvelopeScope): CallRead {
    const { inSection, repairs } = scope;
    const text = this.text;
    let p = skipSpace(text, from);
    const opener = this.callBegin ?? this.sectionBegin ?? '';
    if (this.f.name.slot !== 'marker')
      return this.readArguments({ start, argsFrom: p, name: undefined, after: opener, inSection }, repairs);
    let after = opener;
    if (this.before !== undefined) {
      if (!this.at(this.before, p)) {
        // Prose inside the call's envelope (`<tool_call>Let me check.<function=f>`): the name marker further on, still
        // inside it.
        const q = this.hit(this.before, p);
        if (q < 0 || q >= this.stopAt(p, inSection) || this.callBegin === undefined)
          return this.readBody(start, p, scope);
        p = q;
      }
      p = skipSpace(text, p + this.before.length);
      after = this.before;
    }
    let name: string;
    if (this.after !== undefined) {
      const q = indexInTagHead(text, this.after, p);
      if (q < 0)
        return this.before === undefined
          ? this.readBody(start, p, scope)
          : this.malformed(start, p, {
              expected: `expected the tool name and then ${quoted(this.after)} after ${quoted(after)}`,
              inSection,
            });
      // Anything odd in the name (`functions.x:0`, a leaked token) is cleaned, and recorded, with the name.
      name = text.slice(p, q).trim();
      p = q + this.after.length;
      after = this.after;
      if (this.tagEnd !== undefined) {
        const r = skipAttributes(text, p, this.tagEnd);
        if (r < 0)
          return this.malformed(start, p, {
            expected: `attributes and then ${quoted(this.tagEnd)} after the tool name`,
            inSection,
          });
        p = r;
        after = this.tagEnd;
      }
    } else {
      const q = nameEnd(text, p);
      name = text.slice(p, q);
      p = q;
    }
    if (name === '')
      return this.malformed(start, p, { expected: `expected the tool name after ${quoted(after)}`, inSection });
    const said =
      this.after === undefined
        ? `${after}${name}`
        : this.before !== undefined
          ? `${this.before}${name}${after}`
          : after;
    return this.readArguments({ start, argsFrom: p, name, after: said, inSection }, repairs);
  }

  /**
   * A call whose body does not follow the format's name markers: the body up
   * to the call's closer is read in any call shape (a JSON call object, a
   * Python call, a name then arguments), as the built-in envelopes read
   * theirs, and only for declared tools (resolve-format-call.ts). What it
   * follows is the call's opener.
   */
  private readBody(start: number, from: number, scope: EnvelopeScope): CallRead {
    const after = this.callBegin ?? this.sectionBegin ?? '';
    const stop = this.stopAt(from, scope.inSection, false);
    const end = this.closeWith(this.callEnd, stop, scope.repairs);
    const payload: Payload = {
      kind: 'format',
      format: this.f,
      span: { start, end },
      args: { start: from, end: stop },
      after,
      cut: false,
    };
    return { payload, end, ok: true };
  }

  /** Where the arguments at `from` can run to: the first closer, section end or next call. */
  private stopAt(from: number, inSection: boolean, withArgsEnd = true): number {
    let stop = this.text.length;
    for (const marker of [
      withArgsEnd ? this.argsEnd : undefined,
      this.callEnd,
      inSection ? this.sectionEnd : undefined,
      this.callBegin,
      this.sectionBegin,
    ]) {
      if (marker === undefined) continue;
      const at = this.hit(marker, from);
      if (at >= 0 && at < stop) stop = at;
    }
    return stop;
  }

  private readArguments(
    where: { start: number; argsFrom: number; name: string | undefined; after: string; inSection: boolean },
    repairs: Set<RepairKind>,
  ): CallRead {
    const text = this.text;
    const { start, name, after, inSection } = where;
    const argsStart = skipSpace(text, where.argsFrom);
    const stop = this.stopAt(argsStart, inSection);
    const closer = this.argsEnd ?? this.callEnd;
    let argsEnd = stop;
    let cut = false;
    const c = text.charAt(argsStart);
    // A call expression `name(…)`: its parenthesis says where it ends.
    const paren = this.f.name.slot === 'call' && c !== '[' ? skipSpace(text, nameEnd(text, argsStart)) : argsStart;
    const bracketed = c === '{' || c === '[' || c === '(' || (paren > argsStart && text.charAt(paren) === '(');
    if (bracketed) {
      const open = paren;
      const delimiters = this.f.arguments.grammar === 'object_literal' ? this.f.arguments.stringDelimiters : [];
      // With a closer, the arguments end before it; without one, the brackets say where, never past the section's end
      // (a quote left open in a value written raw must not run the call into the end of the text).
      const limit =
        stop < text.length && (closer !== undefined || (inSection && this.sectionEnd !== undefined))
          ? stop
          : text.length;
      // A list is the whole section: its closer, not a bracket count thrown off by a raw quote, ends it.
      const whole =
        stop < text.length &&
        (closer !== undefined || (this.f.list === true && inSection && this.sectionEnd !== undefined));
      const scanned =
        open < 0 || open >= limit
          ? { end: limit, closed: false }
          : scanBalanced(text, { start: open, end: limit }, delimiters);
      if (scanned.closed) argsEnd = whole ? stop : scanned.end;
      else if (limit === text.length) cut = true;
    }
    let end = argsEnd;
    if (!cut) {
      const k = skipSpace(text, argsEnd);
      end = this.closeWith(this.argsEnd, k, repairs);
      end = this.closeWith(this.callEnd, skipSpace(text, end), repairs);
    }
    if (cut) end = text.length;
    const args = { start: argsStart, end: argsEnd };
    const payload: Payload = {
      kind: 'format',
      format: this.f,
      span: { start, end },
      args,
      after,
      cut,
      ...(name === undefined ? {} : { name }),
    };
    return { payload, end, ok: !cut };
  }

  /** Past `marker` at `pos`; without it the call ends at `pos` and its closer was missing. */
  private closeWith(marker: string | undefined, pos: number, repairs: Set<RepairKind>): number {
    if (marker === undefined) return pos;
    if (this.at(marker, pos)) return pos + marker.length;
    repairs.add('missing_closer');
    return pos;
  }

  private malformed(start: number, pos: number, problem: { expected: string; inSection: boolean }): CallRead {
    const { expected, inSection } = problem;
    const stop = this.stopAt(pos, inSection);
    const end = this.callEnd !== undefined && this.at(this.callEnd, stop) ? stop + this.callEnd.length : stop;
    const bounded = end === this.text.length && this.callEnd === undefined ? pos : end;
    return {
      payload: {
        kind: 'malformed',
        span: { start, end: bounded },
        message: `The ${this.f.id} call is malformed: ${expected}`,
      },
      end: bounded,
      ok: false,
    };
  }
}

/**
 * What starts a call of `format` in a stream: its openers and its distinctive inner markers (held back like the
 * built-ins').
 */
export function formatStreamMarkers(formats: readonly CallFormat[]): string[] {
  const out = new Set<string>();
  for (const format of formats) {
    for (const marker of [format.section?.begin, format.call.begin])
      if (nonEmpty(marker) !== undefined) out.add((marker ?? '').trim());
    if (format.name.slot === 'marker')
      for (const marker of [format.name.before, format.name.after])
        if (isDistinctive(nonEmpty(marker))) out.add((marker ?? '').trim());
  }
  return [...out];
}

/** The envelopes of `format` in `text`, in text order (at most DEFAULT_MAX_ENVELOPES). */
export function findFormatCalls(text: string, format: CallFormat): Envelope[] {
  return new FormatScanner(text, format).findAll();
}
