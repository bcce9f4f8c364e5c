import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildContent, widenOverMarkers } from './content.ts';
import { extractToolCalls } from './extract-tool-calls.ts';
import type { Span } from './types.ts';

/** The content of `text` with `call` (which must occur once) taken out. */
function without(text: string, call: string): string {
  const start = text.indexOf(call);
  assert.ok(start >= 0 && text.indexOf(call, start + 1) < 0, `${call} occurs once`);
  return buildContent(text, [{ start, end: start + call.length }]);
}

const CALL = '<|fn_open|>{"name": "lookup", "arguments": {}}';

describe('buildContent', () => {
  it('collapses the whitespace where a piece was removed', () => {
    assert.equal(without('Before.\n\nX\n\nAfter.', 'X'), 'Before.\n\nAfter.');
    assert.equal(without('Before. X After.', 'X'), 'Before. After.');
    assert.equal(buildContent('  just text  ', []), 'just text');
  });

  it('takes the end-of-turn marker right after a call with it', () => {
    assert.equal(without(`Checking.${CALL}</s>`, CALL), 'Checking.');
    assert.equal(without(`Checking.${CALL}\n<|turn_done|>\n<|eot_id|>`, CALL), 'Checking.');
    assert.equal(without(`Checking.${CALL}<｜end▁of▁sentence｜>`, CALL), 'Checking.');
  });

  it('takes a role header between two markers right before a call with it', () => {
    assert.equal(without(`I will look.<|msg_break|>\n\nfunction call${CALL}`, CALL), 'I will look.');
    assert.equal(without(`I will look.\n<|begin|>assistant<|sep|>${CALL}`, CALL), 'I will look.');
    assert.equal(without(`<|hdr|>Tool<|hdr_end|>\n${CALL}`, CALL), '');
  });

  it('keeps prose between markers, and prose right before a marker', () => {
    assert.equal(without(`<|a|>Here is what I found.<|b|>${CALL}`, CALL), '<|a|>Here is what I found.');
    assert.equal(without(`<|a|>Now I will look it up<|b|>${CALL}`, CALL), '<|a|>Now I will look it up');
    assert.equal(without(`<|a|>Sure thing<|b|>${CALL}`, CALL), '<|a|>Sure thing');
    assert.equal(without(`Let me look${CALL}`, CALL), 'Let me look');
    // A role word needs a marker on both sides: the call's own opener counts as one.
    assert.equal(without(`assistant\n${CALL}`, CALL), 'assistant');
  });

  it('keeps a marker that opens the next message, and markers not next to a call', () => {
    assert.equal(
      without(`${CALL}<|next|>assistant<|ch|>final<|body|>Done.`, CALL),
      '<|next|>assistant<|ch|>final<|body|>Done.',
    );
    assert.equal(without(`${CALL}</s>\n<|next|>user\nHi`, CALL), '<|next|>user\nHi');
    assert.equal(without(`Note <|x|> here. ${CALL}`, CALL), 'Note <|x|> here.');
  });

  it('does not take look-alikes: string delimiters, tags, inline text', () => {
    assert.equal(without(`a <|"|>${CALL}`, CALL), 'a <|"|>');
    assert.equal(without(`<b>${CALL}</b>`, CALL), '<b> </b>');
    assert.equal(without(`<| spaced |>${CALL}`, CALL), '<| spaced |>');
  });
});

describe('widenOverMarkers', () => {
  it('grows the span over markers and blanks only, never past prose', () => {
    const text = `Yes.<|m1|> role <|m2|>${CALL} </s> tail`;
    const start = text.indexOf(CALL);
    const span: Span = widenOverMarkers(text, { start, end: start + CALL.length });
    assert.equal(text.slice(span.start, span.end), `<|m1|> role <|m2|>${CALL} </s>`);
  });

  it('leaves a span with no marker beside it as it is', () => {
    const text = 'Text {"a": 1} more';
    assert.deepEqual(widenOverMarkers(text, { start: 5, end: 13 }), { start: 5, end: 13 });
  });

  it('stays linear on long runs of markers and blanks', () => {
    const run = '<|x|> '.repeat(100_000);
    const text = `${run}${CALL}${'  '.repeat(100_000)}${' a>'.repeat(100_000)}`;
    const start = run.length;
    const started = performance.now();
    const span = widenOverMarkers(text, { start, end: start + CALL.length });
    assert.ok(performance.now() - started < 1000, 'took too long');
    assert.equal(span.start, 0);
  });
});

describe('content of a whole reply', () => {
  const TOOLS = ['lookup'];

  it('leaves the role header and end token of a call out of the content', () => {
    const text = 'Sure, one moment.<|turn_sep|>\nfunction call<|act|>{"name": "lookup", "arguments": {"q": "x"}}</s>';
    const result = extractToolCalls(text, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((call) => call.name),
      ['lookup'],
    );
    assert.equal(result.content, 'Sure, one moment.');
  });

  it('keeps prose written between markers', () => {
    const text = '<|turn_sep|>I am checking the records now.<|act|>{"name": "lookup", "arguments": {"q": "x"}}';
    const result = extractToolCalls(text, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((call) => call.name),
      ['lookup'],
    );
    assert.equal(result.content, '<|turn_sep|>I am checking the records now.');
  });
});
