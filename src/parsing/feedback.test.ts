import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from './extract-tool-calls.ts';
import { formatParseFeedback } from './feedback.ts';
import { closestTool } from './tool-names.ts';
import { TOOL_CALL_FORMAT } from './tool-prompt.ts';

const TOOLS = ['get_weather', 'search_web'];

function feedbackFor(text: string, truncated = false, attempt = 1): string {
  const { diagnostics } = extractToolCalls(text, { tools: TOOLS, truncated });
  return formatParseFeedback({ diagnostics, text, tools: TOOLS, attempt, maxAttempts: 3 });
}

describe('formatParseFeedback', () => {
  it('names an unknown tool, the closest match and the tool list', () => {
    const message = feedbackFor('<tool_call>{"name": "get_wether", "arguments": {}}</tool_call>');
    assert.match(message, /There is no tool named "get_wether"\. Did you mean "get_weather"\?/);
    assert.match(message, /Available tools: get_weather, search_web\./);
  });

  it('quotes the position and the text around invalid JSON', () => {
    const text = '<tool_call>{"name": "search_web", "arguments": {"query": "x", "n": }}</tool_call>';
    const message = feedbackFor(text);
    assert.ok(
      message.includes(
        `Invalid JSON in the call to "search_web" at position ${text.indexOf('"n": ') + 5}: Unexpected character '}'`,
      ),
      message,
    );
    assert.match(message, /Near: «.*"query": "x", "n": }}.*»/);
  });

  it('tells a cut-off reply to send less', () => {
    const message = feedbackFor('<tool_call>{"name": "search_web", "arguments": {"query": "very long', true);
    assert.match(
      message,
      /cut off before the call to "search_web" was complete\. Send shorter arguments, or one call at a time\./,
    );
  });

  it('always restates the expected format, counts attempts and flags the last one', () => {
    const message = feedbackFor('<tool_call>{"name": "x", "arguments": {}}</tool_call>', false, 2);
    assert.ok(message.includes(TOOL_CALL_FORMAT));
    assert.match(message, /attempt 2 of 3/);
    assert.match(message, /This is your last attempt\./);
    assert.doesNotMatch(feedbackFor('<tool_call>{"name": "x", "arguments": {}}</tool_call>', false, 1), /last attempt/);
  });

  it('ignores informational diagnostics', () => {
    const message = formatParseFeedback({
      diagnostics: [{ code: 'repaired', message: 'Repaired it.' }],
      text: '',
      tools: TOOLS,
      attempt: 1,
      maxAttempts: 3,
    });
    assert.doesNotMatch(message, /Repaired it/);
    assert.match(message, /could not be read as a tool call/);
  });
});

describe('closestTool', () => {
  it('finds typos, case and separator differences, and nothing for unrelated names', () => {
    assert.equal(closestTool('get_wether', TOOLS), 'get_weather');
    assert.equal(closestTool('GetWeather', TOOLS), 'get_weather');
    assert.equal(closestTool('websearch', ['search_web', 'web_search']), 'web_search');
    assert.equal(closestTool('send_email', TOOLS), undefined);
  });

  it('tells the model where a call broke in its argument markup and what was expected there', () => {
    const text =
      '<tool_call>\n<function=search_web>\n<parameter=query>\nparis\n</parameter>\nsee ' +
      'above\n</function>\n</tool_call>';
    const message = feedbackFor(text);
    const at = text.indexOf('see above');
    assert.ok(
      message.includes(`at position ${at} expected <parameter=NAME>value</parameter> for each argument`),
      message,
    );
    assert.match(message, /Near: «[^»]*see above[^»]*»/);
    const orphan = '<parameter name="query">paris</parameter>\n</invoke>';
    assert.match(feedbackFor(orphan), /at position 0 expected <invoke name="TOOL"> before the first parameter/);
  });
});
