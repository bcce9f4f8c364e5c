import type { ArgumentGrammar, CallFormat, NameSlot } from '../formats/call-format.ts';
import { xmlElement } from '../formats/xml-arguments.ts';

const q = (text: string): string => JSON.stringify(text);

function nameInWords(name: NameSlot): string {
  switch (name.slot) {
    case 'field':
      return `in the JSON object's ${q(name.nameKey)} field, the arguments in its ${q(name.argumentsKey)} field`;
    case 'key':
      return "as the JSON object's only key, the arguments as its value";
    case 'call':
      return 'as a call expression: NAME(key=value, …)';
    case 'marker':
      return (
        `between ${name.before === undefined ? 'the call opener' : q(name.before)} and ` +
        (`${name.after === undefined ? 'the first character a tool name cannot hold' : q(name.after)}` +
          `${name.tagEnd === undefined ? '' : `, then any other attributes up to ${q(name.tagEnd)}`}`)
      );
  }
}

function argumentsInWords(grammar: ArgumentGrammar): string {
  switch (grammar.grammar) {
    case 'json':
      return 'a JSON object';
    case 'key_value':
      return 'key=value pairs, as in a Python call';
    case 'object_literal':
      return (
        `a JSON-like object${grammar.unquotedKeys ? ' with unquoted keys' : ''}, strings between ` +
        `${grammar.stringDelimiters.map(([open, close]) => `${q(open)} and ${q(close)}`).join(' or ')}`
      );
    case 'xml': {
      const p = grammar.parameters;
      const what = xmlElement(p, 'KEY', 'VALUE');
      return p.form === 'child' ? `per argument ${what}` : `one ${what} element per argument`;
    }
  }
}

function exampleArguments(grammar: ArgumentGrammar): string {
  switch (grammar.grammar) {
    case 'json':
      return '{"city": "Paris"}';
    case 'key_value':
      return 'city="Paris"';
    case 'object_literal': {
      const [open, close] = grammar.stringDelimiters[0] ?? ['"', '"'];
      return `{${grammar.unquotedKeys ? 'city' : '"city"'}:${open}Paris${close}}`;
    }
    case 'xml':
      return xmlElement(grammar.parameters, 'city', 'Paris');
  }
}

/** One call to `get_weather` written in the format, as an example for people. */
export function exampleCall(format: CallFormat): string {
  const args = exampleArguments(format.arguments);
  const name = format.name;
  let body: string;
  if (name.slot === 'field') body = `{"${name.nameKey}": "get_weather", "${name.argumentsKey}": ${args}}`;
  else if (name.slot === 'key') body = `{"get_weather": ${args}}`;
  else if (name.slot === 'call') body = `get_weather(${args})`;
  else body = `${name.before ?? ''}get_weather${name.after ?? ' '}${name.tagEnd ?? ''}${args}`;
  const call = [format.call.begin, body, format.argumentsEnd ?? '', format.call.end ?? ''].join('');
  const listed = format.list === true ? `[${call}]` : call;
  return format.section === undefined ? listed : `${format.section.begin}${listed}${format.section.end ?? ''}`;
}

/** The format in words, several lines: what `toolgate parse --explain` prints. */
export function explainFormat(format: CallFormat): string {
  const lines = [
    `Format ${format.id} (${format.origin})${format.description === undefined ? '' : `: ${format.description}`}`,
  ];
  if (format.section !== undefined)
    lines.push(
      `- The calls of a reply sit between ${q(format.section.begin)} and ` +
        `${format.section.end === undefined ? 'the end of the reply' : q(format.section.end)}.`,
    );
  lines.push(
    format.call.begin === ''
      ? '- A call has no opener of its own.'
      : `- Each call starts with ` +
          `${q(format.call.begin)}${format.call.end === undefined ? '' : ` and ends with ${q(format.call.end)}`}.`,
  );
  if (format.call.begin === '' && format.call.end !== undefined)
    lines.push(`- Each call ends with ${q(format.call.end)}.`);
  if (format.list === true) lines.push('- The calls are written as a list: [call, call].');
  if (format.separator !== undefined) lines.push(`- Calls are separated by ${q(format.separator)}.`);
  lines.push(`- The tool's name is written ${nameInWords(format.name)}.`);
  lines.push(
    `- The arguments are ` +
      (`${argumentsInWords(format.arguments)}` +
        `${format.argumentsEnd === undefined ? '' : `, followed by ${q(format.argumentsEnd)}`}.`),
  );
  if (format.reasoning !== undefined)
    lines.push(
      `- Reasoning sits between ` +
        `${format.reasoning.begin === '' ? 'the start of the reply' : q(format.reasoning.begin)} ` +
        `and ${q(format.reasoning.end)}.`,
    );
  lines.push(`- Example: ${exampleCall(format)}`);
  return lines.join('\n');
}
