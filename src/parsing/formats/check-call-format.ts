import { isRecord } from '../../core/json.ts';
import type { ArgumentGrammar, CallFormat, NameSlot, TagSyntax, XmlParameters } from './call-format.ts';

/**
 * Checks a format a user wrote in `toolgate.yaml` (`parsing.formats:`): every
 * problem names its path and says how to fix it. The format comes back with
 * its markers trimmed and `origin: 'config'`.
 */

export type CallFormatCheck = { ok: true; format: CallFormat } | { ok: false; problems: string[] };

type Obj = Record<string, unknown>;

const GRAMMARS = ['json', 'object_literal', 'xml', 'key_value'] as const;
const SLOTS = ['field', 'key', 'marker', 'call'] as const;
const FORMS = ['attribute', 'equals', 'child', 'tag'] as const;

class Checker {
  readonly problems: string[] = [];

  unknownKeys(value: Obj, path: string, allowed: readonly string[]): void {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key))
        this.problems.push(`${path}.${key}: unknown key; allowed keys are ${allowed.join(', ')}.`);
    }
  }

  object(value: unknown, path: string, what: string): Obj | undefined {
    if (isRecord(value)) return value;
    this.problems.push(`${path}: must be an object (${what}).`);
    return undefined;
  }

  /** A marker: literal text, not empty, stored trimmed. `allowEmpty` for a call opener inside a section. */
  marker(value: unknown, path: string, options: { required: boolean; allowEmpty?: boolean }): string | undefined {
    if (value === undefined) {
      if (options.required) this.problems.push(`${path}: missing; write the literal text of the marker.`);
      return undefined;
    }
    if (typeof value !== 'string') {
      this.problems.push(
        `${path}: must be a string (the literal text of the marker), ` +
          `got ${Array.isArray(value) ? 'a list' : typeof value}.`,
      );
      return undefined;
    }
    const trimmed = value.trim();
    if (trimmed === '' && options.allowEmpty !== true) {
      this.problems.push(`${path}: is empty or only whitespace; write the marker's text, or leave the key out.`);
      return undefined;
    }
    return trimmed;
  }

  /** `{begin, end}` markers (a section, the reasoning): `begin` is required, `end` when `shape.endRequired`. */
  markerPair(
    value: unknown,
    path: string,
    shape: { what: string; endRequired: boolean },
  ): { begin: string | undefined; end: string | undefined } | undefined {
    const raw = this.object(value, path, shape.what);
    if (raw === undefined) return undefined;
    this.unknownKeys(raw, path, ['begin', 'end']);
    const begin = this.marker(raw['begin'], `${path}.begin`, { required: true });
    const end = this.marker(raw['end'], `${path}.end`, { required: shape.endRequired });
    return { begin, end };
  }

  name(value: unknown, path: string): NameSlot | undefined {
    const slot = this.object(value, path, `where the tool's name is: {slot: ${SLOTS.join(' | ')}, …}`);
    if (slot === undefined) return undefined;
    switch (slot['slot']) {
      case 'field': {
        this.unknownKeys(slot, path, ['slot', 'nameKey', 'argumentsKey']);
        const nameKey = this.marker(slot['nameKey'], `${path}.nameKey`, { required: true });
        const argumentsKey = this.marker(slot['argumentsKey'], `${path}.argumentsKey`, { required: true });
        return nameKey === undefined || argumentsKey === undefined
          ? undefined
          : { slot: 'field', nameKey, argumentsKey };
      }
      case 'key':
      case 'call':
        this.unknownKeys(slot, path, ['slot']);
        return { slot: slot['slot'] };
      case 'marker': {
        this.unknownKeys(slot, path, ['slot', 'before', 'after', 'tagEnd']);
        const before = this.marker(slot['before'], `${path}.before`, { required: false });
        const after = this.marker(slot['after'], `${path}.after`, { required: false });
        const tagEnd = this.marker(slot['tagEnd'], `${path}.tagEnd`, { required: false });
        if (tagEnd !== undefined && after === undefined)
          this.problems.push(
            `${path}.tagEnd: needs name.after, the text that ends the name ` +
              `(the attribute's closing quote) before the other attributes.`,
          );
        return {
          slot: 'marker',
          ...(before === undefined ? {} : { before }),
          ...(after === undefined ? {} : { after }),
          ...(tagEnd === undefined ? {} : { tagEnd }),
        };
      }
      default:
        this.problems.push(
          `${path}.slot: must be one of ${SLOTS.join(', ')} (field: {"name": …, ` +
            `"arguments": …}; key: {"<tool>": {…}}; marker: between markers; call: <tool>(…)).`,
        );
        return undefined;
    }
  }

  /** Tag delimiters other than `<`, `>`, `</`: all of open, end and close, or none. */
  syntax(value: unknown, path: string): { ok: boolean; syntax?: TagSyntax } {
    if (value === undefined) return { ok: true };
    const raw = this.object(
      value,
      path,
      'the tag delimiters: {open, end, close, closeEnd?}, like {open: "<|open|>", end: "<|sep|>", close: "<|close|>"}',
    );
    if (raw === undefined) return { ok: false };
    this.unknownKeys(raw, path, ['open', 'end', 'close', 'closeEnd']);
    const [open, end, close] = [
      this.marker(raw['open'], `${path}.open`, { required: true }),
      this.marker(raw['end'], `${path}.end`, { required: true }),
      this.marker(raw['close'], `${path}.close`, { required: true }),
    ];
    const closeEnd = this.marker(raw['closeEnd'], `${path}.closeEnd`, { required: false });
    if (open === undefined || end === undefined || close === undefined) return { ok: false };
    if (open === close)
      this.problems.push(
        `${path}.close: must differ from ${path}.open, or an opening tag cannot be told from a closing one.`,
      );
    return { ok: open !== close, syntax: { open, end, close, ...(closeEnd === undefined ? {} : { closeEnd }) } };
  }

  xml(value: unknown, path: string): XmlParameters | undefined {
    const params = this.object(value, path, `how each argument is written: {form: ${FORMS.join(' | ')}, …}`);
    if (params === undefined) return undefined;
    const syntax = this.syntax(params['syntax'], `${path}.syntax`);
    if (!syntax.ok) return undefined;
    const form = this.xmlForm(params, path);
    return form === undefined || syntax.syntax === undefined ? form : { ...form, syntax: syntax.syntax };
  }

  private xmlForm(params: Obj, path: string): XmlParameters | undefined {
    const tag = (key: string): string | undefined => this.marker(params[key], `${path}.${key}`, { required: true });
    switch (params['form']) {
      case 'attribute': {
        this.unknownKeys(params, path, ['form', 'tag', 'attribute', 'syntax']);
        const [t, a] = [tag('tag'), tag('attribute')];
        return t === undefined || a === undefined ? undefined : { form: 'attribute', tag: t, attribute: a };
      }
      case 'equals': {
        this.unknownKeys(params, path, ['form', 'tag', 'syntax']);
        const t = tag('tag');
        return t === undefined ? undefined : { form: 'equals', tag: t };
      }
      case 'child': {
        this.unknownKeys(params, path, ['form', 'keyTag', 'valueTag', 'syntax']);
        const [k, v] = [tag('keyTag'), tag('valueTag')];
        return k === undefined || v === undefined ? undefined : { form: 'child', keyTag: k, valueTag: v };
      }
      case 'tag':
        this.unknownKeys(params, path, ['form', 'syntax']);
        return { form: 'tag' };
      default:
        this.problems.push(`${path}.form: must be one of ${FORMS.join(', ')}.`);
        return undefined;
    }
  }

  delimiters(value: unknown, path: string): [string, string][] | undefined {
    if (value === undefined) return [['"', '"']];
    if (!Array.isArray(value)) {
      this.problems.push(`${path}: must be a list of [open, close] pairs, like [["<escape>", "<escape>"]].`);
      return undefined;
    }
    const out: [string, string][] = [];
    for (const [i, pair] of value.entries()) {
      if (!Array.isArray(pair) || pair.length !== 2) {
        this.problems.push(`${path}[${i}]: must be a pair [open, close], like ["<escape>", "<escape>"].`);
        continue;
      }
      const open = this.marker(pair[0], `${path}[${i}][0]`, { required: true });
      const close = this.marker(pair[1], `${path}[${i}][1]`, { required: true });
      if (open !== undefined && close !== undefined) out.push([open, close]);
    }
    return out;
  }

  grammar(value: unknown, path: string): ArgumentGrammar | undefined {
    const grammar = this.object(value, path, `how the arguments are written: {grammar: ${GRAMMARS.join(' | ')}, …}`);
    if (grammar === undefined) return undefined;
    switch (grammar['grammar']) {
      case 'json':
      case 'key_value':
        this.unknownKeys(grammar, path, ['grammar']);
        return { grammar: grammar['grammar'] };
      case 'object_literal': {
        this.unknownKeys(grammar, path, ['grammar', 'stringDelimiters', 'unquotedKeys']);
        const delimiters = this.delimiters(grammar['stringDelimiters'], `${path}.stringDelimiters`);
        const unquoted = grammar['unquotedKeys'];
        if (unquoted !== undefined && typeof unquoted !== 'boolean')
          this.problems.push(`${path}.unquotedKeys: must be true or false.`);
        return delimiters === undefined
          ? undefined
          : { grammar: 'object_literal', stringDelimiters: delimiters, unquotedKeys: unquoted !== false };
      }
      case 'xml': {
        this.unknownKeys(grammar, path, ['grammar', 'parameters']);
        const parameters = this.xml(grammar['parameters'], `${path}.parameters`);
        return parameters === undefined ? undefined : { grammar: 'xml', parameters };
      }
      default:
        this.problems.push(
          `${path}.grammar: must be one of ${GRAMMARS.join(', ')}, got ${JSON.stringify(grammar['grammar'])}.`,
        );
        return undefined;
    }
  }
}

const TOP_KEYS = [
  'id',
  'description',
  'section',
  'call',
  'separator',
  'name',
  'arguments',
  'argumentsEnd',
  'list',
  'reasoning',
];

export function checkCallFormat(value: unknown, where: string): CallFormatCheck {
  const c = new Checker();
  if (!isRecord(value))
    return {
      ok: false,
      problems: [`${where}: must be an object describing a call format (id, call, name, arguments…).`],
    };
  c.unknownKeys(value, where, TOP_KEYS);
  const id = value['id'];
  if (typeof id !== 'string' || id.trim() === '')
    c.problems.push(`${where}.id: missing; give the format a short name (shown in diagnostics).`);
  const description = value['description'];
  if (description !== undefined && typeof description !== 'string')
    c.problems.push(`${where}.description: must be a string.`);
  let section: CallFormat['section'];
  if (value['section'] !== undefined) {
    const pair = c.markerPair(value['section'], `${where}.section`, {
      what: 'the markers around all the calls: {begin, end?}',
      endRequired: false,
    });
    const begin = pair?.begin;
    if (begin !== undefined) section = { begin, ...(pair?.end === undefined ? {} : { end: pair.end }) };
  }
  let call: CallFormat['call'] | undefined;
  const rawCall = c.object(value['call'] ?? {}, `${where}.call`, 'the markers around each call: {begin, end?}');
  if (rawCall !== undefined) {
    c.unknownKeys(rawCall, `${where}.call`, ['begin', 'end']);
    const begin = c.marker(rawCall['begin'] ?? '', `${where}.call.begin`, { required: false, allowEmpty: true }) ?? '';
    const end = c.marker(rawCall['end'], `${where}.call.end`, { required: false });
    if (begin === '' && value['section'] === undefined) {
      c.problems.push(
        `${where}.call.begin: missing, and there is no section.begin: set call.begin ` +
          `(the text that opens each call) or section.begin (the text that opens the calls).`,
      );
    }
    call = { begin, ...(end === undefined ? {} : { end }) };
  }
  const name =
    value['name'] === undefined
      ? (c.problems.push(`${where}.name: missing; say where the tool's name is ({slot: field | key | marker | call}).`),
        undefined)
      : c.name(value['name'], `${where}.name`);
  if (name?.slot === 'marker' && name.before === undefined && name.after === undefined && (call?.begin ?? '') === '') {
    c.problems.push(
      `${where}.name: a marker name slot needs something to find ` +
        `the name by: set name.before or name.after, or call.begin.`,
    );
  }
  const args =
    value['arguments'] === undefined
      ? (c.problems.push(
          `${where}.arguments: missing; say how the arguments are written ({grammar: ${GRAMMARS.join(' | ')}}).`,
        ),
        undefined)
      : c.grammar(value['arguments'], `${where}.arguments`);
  const separator = c.marker(value['separator'], `${where}.separator`, { required: false });
  const argumentsEnd = c.marker(value['argumentsEnd'], `${where}.argumentsEnd`, { required: false });
  const list = value['list'];
  if (list !== undefined && typeof list !== 'boolean') c.problems.push(`${where}.list: must be true or false.`);
  let reasoning: CallFormat['reasoning'];
  if (value['reasoning'] !== undefined) {
    const pair = c.markerPair(value['reasoning'], `${where}.reasoning`, {
      what: 'the markers around the reasoning: {begin, end}',
      endRequired: true,
    });
    if (pair?.begin !== undefined && pair.end !== undefined) reasoning = { begin: pair.begin, end: pair.end };
  }
  if (c.problems.length > 0 || call === undefined || name === undefined || args === undefined || typeof id !== 'string')
    return { ok: false, problems: c.problems };
  const format: CallFormat = {
    id: id.trim(),
    origin: 'config',
    ...(typeof description === 'string' ? { description } : {}),
    ...(section === undefined ? {} : { section }),
    call,
    ...(separator === undefined ? {} : { separator }),
    name,
    arguments: args,
    ...(argumentsEnd === undefined ? {} : { argumentsEnd }),
    ...(list === true ? { list } : {}),
    ...(reasoning === undefined ? {} : { reasoning }),
  };
  return { ok: true, format };
}
