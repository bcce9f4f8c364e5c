import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { formatLogLine, prettyDestination } from './serve-log-format.ts';

const TIME = '2026-03-04T05:06:07.000Z';
/** The clock part as this machine's time zone shows TIME. */
const CLOCK = ((d) => [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':'))(
  new Date(TIME),
);

describe('serve log format', () => {
  it('time, level, message, short field names, the duration last', () => {
    const line = formatLogLine(
      {
        level: 'info',
        time: TIME,
        msg: 'run completed',
        runId: 'run_1',
        tenantId: 'acme',
        status: 'completed',
        steps: 3,
        durationMs: 1234,
      },
      { color: false },
    );
    assert.equal(line, `${CLOCK} INFO  run completed run=run_1 tenant=acme status=completed steps=3 1234ms\n`);
  });

  it(
    'quotes values with spaces, prints structured values as ' +
      'JSON, and a curl line or an error on lines of their own',
    () => {
      const curl =
        `curl -X POST http://h/v1/runs/run_1/input -H ` + `'content-type: application/json' -d '{"type":"approval"}'`;
      const line = formatLogLine(
        {
          level: 'warn',
          time: TIME,
          msg: 'run waits for approval',
          tool: 'placeOrder',
          reason: 'a b',
          runIds: ['x', 'y'],
          curl,
        },
        { color: false },
      );
      assert.equal(
        line,
        `${CLOCK} WARN  run waits for approval tool=placeOrder reason="a b" runIds="[\\"x\\",\\"y\\"]"\n  ${curl}\n`,
      );
      const failed = formatLogLine(
        { level: 'error', time: TIME, msg: 'request failed', requestId: 'req_1', error: 'Error: boom\n    at x' },
        { color: false },
      );
      assert.equal(failed, `${CLOCK} ERROR request failed req=req_1\n  Error: boom\n      at x\n`);
    },
  );

  it('colours the level only when asked', () => {
    const line = formatLogLine({ level: 'error', time: TIME, msg: 'x' }, { color: true });
    assert.equal(line, `${CLOCK} \u001b[31mERROR\u001b[39m x\n`);
  });

  it('as a pino destination: every entry pino writes becomes one readable line', () => {
    let out = '';
    const logger = pino(
      {
        level: 'info',
        base: null,
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
      },
      prettyDestination({ color: false, write: (t) => (out += t) }),
    );
    logger.info({ runId: 'run_9', latencyMs: 12 }, 'request');
    logger.debug('not at info');
    assert.match(out, /^\d\d:\d\d:\d\d INFO {2}request run=run_9 12ms\n$/);
  });

  it('passes through a line that is not JSON', () => {
    let out = '';
    prettyDestination({ color: false, write: (t) => (out += t) }).write('plain text\n');
    assert.equal(out, 'plain text\n');
  });
});
