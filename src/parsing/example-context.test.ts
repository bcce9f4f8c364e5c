import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findFences } from './envelopes/fence.ts';
import { exampleReason } from './example-context.ts';
import { extractToolCalls } from './extract-tool-calls.ts';

const at = (text: string, marker = '{'): string | undefined => exampleReason(text, text.indexOf(marker));

describe('exampleReason', () => {
  it('sees cue phrases right before the call, on its line or the line above', () => {
    assert.match(at('For example: {"name": "a"}') ?? '', /For example/);
    assert.match(at('A call would look something like this:\n{"name": "a"}') ?? '', /look something like this/);
    assert.match(at('比如：{"name": "a"}') ?? '', /比如/);
    assert.match(at('The tool returned:\n{"name": "a"}') ?? '', /returned/);
  });

  it('ignores cues earlier in the paragraph and across a blank line', () => {
    assert.equal(at('Temperatures vary, e.g. by season. Checking now:\n{"name": "a"}'), undefined);
    assert.equal(at('For example:\n\n{"name": "a"}'), undefined);
    assert.equal(at('I\'ll call the tool like this:\n{"name": "a"}'), undefined);
  });

  it('sees blockquotes and inline code', () => {
    assert.match(at('> {"name": "a"}') ?? '', /blockquote/);
    assert.match(at('use `{"name": "a"}` here') ?? '', /inline code/);
  });

  it('uses the fence: its info string and the line before it', () => {
    const sample = '```output\n{"name": "a"}\n```';
    assert.match(exampleReason(sample, sample.indexOf('{'), findFences(sample)[0]) ?? '', /"output" block/);
    const cued = 'Here is an example:\n```json\n{"name": "a"}\n```';
    assert.match(exampleReason(cued, cued.indexOf('{'), findFences(cued)[0]) ?? '', /an example/);
  });
});

describe('fenced examples after a blank line, and lead-ins about what a model writes', () => {
  const fenced = (lead: string) =>
    `${lead}\n\n\`\`\`\n<tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</tool_call>\n\`\`\``;
  it('a fence after "e.g.:" and a blank line, or after a sentence about what the model emits, is an example', () => {
    for (const lead of [
      'The template asks for a specific syntax, e.g.:',
      'In practice the model sometimes emits an older format instead:',
    ]) {
      const r = extractToolCalls(fenced(lead), { tools: ['get_weather'] });
      assert.deepEqual(r.calls, [], lead);
    }
  });
  it("a fence after the writer's own lead-in is still a call", () => {
    const r = extractToolCalls(fenced('Let me check the weather:'), { tools: ['get_weather'] });
    assert.deepEqual(
      r.calls.map((c) => c.name),
      ['get_weather'],
    );
  });
});
