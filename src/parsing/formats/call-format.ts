/**
 * A tool-call format as data: the one declarative shape that the built-in
 * lexicon, the formats a user writes in `parsing.formats`, and the formats
 * derived from a model's chat template all share. Every marker is literal
 * text, stored trimmed; the reader skips whitespace between the parts.
 *
 * One call is written:
 *
 * [section.begin] call.begin [name.before] NAME [name.after] ARGUMENTS [argumentsEnd] call.end [separator] …
 * [section.end]
 *
 * where NAME and ARGUMENTS sit as `name.slot` and `arguments.grammar` say.
 */
export interface CallFormat {
  /** A short id, shown in diagnostics and reports: `hermes`, `template:Qwen3-8B`, a user's own name. */
  id: string;
  /** Where the format comes from. */
  origin: 'builtin' | 'template' | 'config';
  /** One line for people (`--explain`, `toolgate parse report`). */
  description?: string;
  /** Around all the calls of a reply (`<|tool_calls_section_begin|>` … `<|tool_calls_section_end|>`). */
  section?: { begin: string; end?: string };
  /**
   * Around each call (`<tool_call>` … `</tool_call>`). `begin` may be '' only
   * when `section` is set (the calls then follow each other inside it).
   */
  call: { begin: string; end?: string };
  /** Between two calls (inside the section, or between two call envelopes): `,`, `;`; whitespace is always allowed. */
  separator?: string;
  /** Where the tool's name is written. */
  name: NameSlot;
  /** How the arguments are written (inside an envelope every grammar is tried; this one first). */
  arguments: ArgumentGrammar;
  /** Text right after the arguments, before `call.end` (`</function>`, a closing fence). */
  argumentsEnd?: string;
  /** The calls of one envelope are written as a list: `[{…}, {…}]`, `[f(a=1), g()]`. */
  list?: boolean;
  /** Markers around the model's reasoning (`<think>` … `</think>`). */
  reasoning?: { begin: string; end: string };
}

export type NameSlot =
  /** Inside a JSON(-like) object: `{"name": "get_weather", "arguments": {…}}`. */
  | { slot: 'field'; nameKey: string; argumentsKey: string }
  /** The name is the object's only key: `{"get_weather": {…}}`. */
  | { slot: 'key' }
  /**
   * Between markers: `before` NAME `after` (`<function=` NAME `>`, NAME `[ARGS]`).
   * Without `after` the name ends where a tool name cannot go on (a space, `<`, `{`, `(`).
   * `tagEnd`: the name is an attribute of a tag that may hold more attributes
   * after it (`<|open|>call tool="` NAME `"` ` index="1"` `<|sep|>`): past
   * `after`, attributes (`key="value"`, whose values vary between calls) are
   * skipped up to `tagEnd`.
   */
  | { slot: 'marker'; before?: string; after?: string; tagEnd?: string }
  /** A call expression: `get_weather(city="Paris")`. */
  | { slot: 'call' };

export type ArgumentGrammar =
  /** JSON (repaired as JSON is everywhere). */
  | { grammar: 'json' }
  /**
   * A JSON-like object literal: keys may be unquoted, strings delimited by
   * other tokens (`{city:<escape>Paris<escape>}`).
   */
  | { grammar: 'object_literal'; stringDelimiters: readonly (readonly [string, string])[]; unquotedKeys: boolean }
  /** XML parameters (see XmlParameters). */
  | { grammar: 'xml'; parameters: XmlParameters }
  /** `key=value` pairs, as in a Python call: `city="Paris", days=3`. */
  | { grammar: 'key_value' };

/**
 * One argument per element, in one of the forms models use:
 * - `attribute`: `<parameter name="city">Paris</parameter>` (tag `parameter`, attribute `name`)
 * - `equals`:    `<parameter=city>Paris</parameter>` (tag `parameter`)
 * - `child`:     `<arg_key>city</arg_key><arg_value>Paris</arg_value>` (keyTag, valueTag)
 * - `tag`:       `<city>Paris</city>` (the tag is the argument's name)
 * A value is text, or JSON when it reads as a JSON value the schema wants;
 * a typing attribute on the element (`string="true"`, `type="number"`) says which.
 * `syntax` gives the tag delimiters when they are not `<`, `>`, `</`, `>`.
 */
export type XmlParameters = (
  | { form: 'attribute'; tag: string; attribute: string }
  | { form: 'equals'; tag: string }
  | { form: 'child'; keyTag: string; valueTag: string }
  | { form: 'tag' }
) & { syntax?: TagSyntax };

/**
 * The delimiters of XML-like markup whose tags are written with other tokens:
 * `<|open|>argument key="city"<|sep|>Paris<|close|>argument<|sep|>` is
 * `{ open: '<|open|>', end: '<|sep|>', close: '<|close|>' }`. Omitted: `<`, `>`, `</`.
 */
export interface TagSyntax {
  /** Starts an opening tag (`<`). */
  open: string;
  /** Ends an opening tag (`>`), and a closing tag unless `closeEnd` says otherwise. */
  end: string;
  /** Starts a closing tag (`</`). */
  close: string;
  /** Ends a closing tag, when it differs from `end`. */
  closeEnd?: string;
}
