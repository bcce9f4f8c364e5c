// A form for a tool's arguments, generated from its input schema: one field per
// property (a list for an enum, a number field, a checkbox, JSON for objects and
// arrays). Values the server injects are shown, marked, and never sent: the
// server fills them in again whatever the page says.
import { h } from './dom.ts';
import { checkAgainstSchema, type SchemaIssue } from './schema-check.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface SchemaForm {
  el: HTMLElement;
  read(): { ok: true; value: Record<string, Json> } | { ok: false; issues: SchemaIssue[] };
}

interface Field {
  key: string;
  read(): { ok: true; value: Json | undefined } | { ok: false; message: string };
}

function schemaType(schema: Record<string, unknown>): string {
  const type = schema['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return String(type.find((t) => t !== 'null') ?? 'string');
  return 'json';
}

function fieldFor(
  key: string,
  schema: Record<string, unknown>,
  value: Json | undefined,
  required: boolean,
): { row: HTMLElement; field: Field } {
  const id = `arg-${key.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const type = Array.isArray(schema['enum']) ? 'enum' : schemaType(schema);
  const description = typeof schema['description'] === 'string' ? schema['description'] : undefined;
  let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  let read: Field['read'];
  if (type === 'enum') {
    const options = schema['enum'] as Json[];
    const select = h(
      'select',
      { id, name: key },
      required ? null : h('option', { value: '' }, '(not set)'),
      options.map((option, i) =>
        h('option', { value: String(i) }, typeof option === 'string' ? option : JSON.stringify(option)),
      ),
    );
    const index = options.findIndex((o) => JSON.stringify(o) === JSON.stringify(value));
    select.value = index >= 0 ? String(index) : '';
    input = select;
    read = () => ({ ok: true, value: select.value === '' ? undefined : options[Number(select.value)] });
  } else if (type === 'boolean') {
    const box = h('input', { id, name: key, type: 'checkbox', checked: value === true });
    input = box;
    read = () => ({ ok: true, value: box.checked });
  } else if (type === 'number' || type === 'integer') {
    const field = h('input', {
      id,
      name: key,
      type: 'text',
      inputmode: 'decimal',
      value: value === undefined ? '' : String(value as number),
    });
    input = field;
    read = () => {
      const text = field.value.trim();
      if (text === '') return { ok: true, value: undefined };
      const n = Number(text);
      if (!Number.isFinite(n)) return { ok: false, message: `${key}: "${text}" is not a number` };
      return { ok: true, value: n };
    };
  } else if (type === 'string') {
    const long = typeof value === 'string' && (value.length > 80 || value.includes('\n'));
    const field = long ? h('textarea', { id, name: key, rows: 3 }) : h('input', { id, name: key, type: 'text' });
    field.value = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
    input = field;
    read = () => ({ ok: true, value: field.value === '' && !required ? undefined : field.value });
  } else {
    const field = h('textarea', { id, name: key, rows: 4, class: 'mono' });
    field.value = value === undefined ? '' : JSON.stringify(value, null, 2);
    input = field;
    read = () => {
      const text = field.value.trim();
      if (text === '') return { ok: true, value: undefined };
      try {
        return { ok: true, value: JSON.parse(text) as Json };
      } catch (error) {
        return { ok: false, message: `${key}: not JSON (${error instanceof Error ? error.message : String(error)})` };
      }
    };
  }
  const row = h(
    'div',
    { class: 'form-row' },
    h(
      'label',
      { for: id },
      key,
      required ? h('span', { class: 'required', title: 'required' }, ' *') : null,
      h('span', { class: 'muted' }, ` ${type}`),
    ),
    input,
    description === undefined ? null : h('div', { class: 'hint' }, description),
  );
  return { row, field: { key, read } };
}

export function schemaForm(options: {
  schema: unknown;
  value: Record<string, Json>;
  injected: readonly string[];
}): SchemaForm {
  const schema = (typeof options.schema === 'object' && options.schema !== null ? options.schema : {}) as Record<
    string,
    unknown
  >;
  const properties = (
    typeof schema['properties'] === 'object' && schema['properties'] !== null ? schema['properties'] : {}
  ) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
  const injected = new Set(options.injected);
  const keys = [...new Set([...Object.keys(properties), ...Object.keys(options.value)])];
  const fields: Field[] = [];
  const el = h('div', { class: 'schema-form' });
  for (const key of keys) {
    if (injected.has(key)) {
      el.append(
        h(
          'div',
          { class: 'form-row injected' },
          h('span', { class: 'label' }, key),
          h(
            'span',
            { class: 'badge injected', title: 'set by the server, never shown to the model' },
            'injected by the server',
          ),
        ),
      );
      continue;
    }
    const { row, field } = fieldFor(key, properties[key] ?? {}, options.value[key], required.has(key));
    el.append(row);
    fields.push(field);
  }
  const forCheck: Record<string, unknown> = { ...schema, required: [...required].filter((k) => !injected.has(k)) };
  return {
    el,
    read() {
      const value: Record<string, Json> = {};
      const issues: SchemaIssue[] = [];
      for (const field of fields) {
        const result = field.read();
        if (!result.ok) issues.push({ path: field.key, message: result.message });
        else if (result.value !== undefined) value[field.key] = result.value;
      }
      issues.push(...checkAgainstSchema(value, forCheck));
      return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
    },
  };
}
