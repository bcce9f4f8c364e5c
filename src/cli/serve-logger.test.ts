import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../core/index.ts';
import { createServeLogger, resolveLogLevel } from './serve-logger.ts';

describe('serve logger', () => {
  it('--log-level over TOOLGATE_LOG_LEVEL over info; a bad level names the allowed ones', () => {
    assert.equal(resolveLogLevel({ flag: undefined, env: {} }), 'info');
    assert.equal(resolveLogLevel({ flag: undefined, env: { TOOLGATE_LOG_LEVEL: 'DEBUG' } }), 'debug');
    assert.equal(resolveLogLevel({ flag: 'warn', env: { TOOLGATE_LOG_LEVEL: 'debug' } }), 'warn');
    assert.throws(
      () => resolveLogLevel({ flag: 'loud', env: {} }),
      (error: unknown) =>
        error instanceof ToolgateError &&
        error.code === 'usage' &&
        /--log-level must be one of fatal, error, warn, info, debug, trace; got "loud"/.test(error.message),
    );
    assert.throws(
      () => resolveLogLevel({ flag: undefined, env: { TOOLGATE_LOG_LEVEL: 'nope' } }),
      /TOOLGATE_LOG_LEVEL must be one of/,
    );
  });

  it('JSON lines with level names and ISO times when stderr is not a terminal; readable lines when it is', () => {
    let piped = '';
    const json = createServeLogger({
      io: { stdout: { write: () => true }, stderr: { write: (t: string) => (piped += t) }, env: {}, cwd: '.' },
      level: 'info',
    });
    json.info({ runId: 'run_1' }, 'run started');
    json.debug('hidden');
    const entry = JSON.parse(piped) as Record<string, unknown>;
    assert.equal(entry['level'], 'info');
    assert.match(String(entry['time']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(
      [entry['msg'], entry['runId'], entry['pid'], entry['hostname']],
      ['run started', 'run_1', undefined, undefined],
    );

    let shown = '';
    const tty = createServeLogger({
      io: {
        stdout: { write: () => true },
        stderr: { write: (t: string) => (shown += t), isTTY: true },
        env: { NO_COLOR: '1' },
        cwd: '.',
      },
      level: 'warn',
    });
    tty.info('hidden');
    tty.warn({ runId: 'run_2' }, 'run failed');
    assert.match(shown, /^\d\d:\d\d:\d\d WARN {2}run failed run=run_2\n$/);
  });
});
