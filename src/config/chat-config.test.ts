import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from './load-config.ts';
import { resolveSettings } from './resolve-settings.ts';
import { configProblems } from '../../test/support/config-problems.ts';

function problems(chat: unknown): string[] {
  return configProblems({ chat });
}

describe('config: chat (the OpenAI-compatible route’s hold message and wait)', () => {
  it('accepts a message naming {runId} and a timeout in range, and hands them to the settings', () => {
    const chat = { approvalMessage: '{tool} waits in run {runId} ({reason}).', approvalTimeoutMs: 60_000 };
    assert.deepEqual(problems(chat), []);
    const config = parseConfig({ chat }, { source: 'toolgate.yaml', env: {} });
    assert.deepEqual(resolveSettings(config, {}, {}).chat, chat);
  });

  it('refuses a message without {runId} (the next request finds the run by it), a timeout out of range, a typo', () => {
    const [missing] = problems({ approvalMessage: 'It waits for a person.' });
    assert.match(missing ?? '', /^chat\.approvalMessage: must contain \{runId\}/);
    assert.match(problems({ approvalTimeoutMs: 10 })[0] ?? '', /^chat\.approvalTimeoutMs: /);
    assert.match(problems({ approvalTimeoutMS: 1000 })[0] ?? '', /^chat\.approvalTimeoutMS: unknown key/);
  });
});
