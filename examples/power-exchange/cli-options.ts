import { parseArgs } from 'node:util';
import type { FaultOptions } from './tool-runner.ts';

export const DEFAULT_HOST = '127.0.0.1';
/** The longest --delay accepted: an hour is already far beyond any client timeout. */
export const MAX_DELAY_MS = 3_600_000;
/** The largest --initial-cash accepted: money is kept in integer milli-euros, far below this bound. */
export const MAX_INITIAL_CASH_EUR = 1_000_000_000;

export const USAGE = `usage: node examples/power-exchange/server.ts [options]

A demo electricity exchange served over MCP (stdio by default).

options:
  --http PORT         serve Streamable HTTP on PORT at /mcp instead of stdio (0 = random port)
  --host HOST         interface to bind in HTTP mode (default ${DEFAULT_HOST})
  --state FILE        load the venue from FILE if it exists and save it after every write
  --initial-cash EUR  cash every new user starts with, the demo users included (default 10000)
  --delay TOOL=MS     TOOL waits MS milliseconds before it runs (repeatable)
  --exit-on TOOL      the process exits with code 1 when TOOL is called (repeatable)
  --fail-on TOOL      TOOL throws an error instead of running (repeatable)
  -h, --help          print this help`;

export interface ServerOptions {
  transport: { kind: 'stdio' } | { kind: 'http'; port: number; host: string };
  statePath?: string;
  /** Cash of every newly registered user; the exchange's default when absent. */
  initialCashEUR?: number;
  faults: FaultOptions;
  help: boolean;
}

export type ParseOptionsResult = { ok: true; options: ServerOptions } | { ok: false; message: string };

function toolName(option: string, value: string, tools: readonly string[]): string | undefined {
  return tools.includes(value) ? undefined : `${option} ${value}: unknown tool; tools are ${tools.join(', ')}`;
}

/** Parses the command line; every problem comes back as one message for the usage error. */
export function parseServerArgs(args: { argv: readonly string[]; tools: readonly string[] }): ParseOptionsResult {
  const { tools } = args;
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args.argv],
      strict: true,
      allowPositionals: false,
      options: {
        http: { type: 'string' },
        host: { type: 'string' },
        state: { type: 'string' },
        'initial-cash': { type: 'string' },
        delay: { type: 'string', multiple: true },
        'exit-on': { type: 'string', multiple: true },
        'fail-on': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }

  let transport: ServerOptions['transport'] = { kind: 'stdio' };
  if (values.http !== undefined) {
    const port = Number(values.http);
    if (!/^\d+$/.test(values.http) || port > 65_535)
      return { ok: false, message: `--http ${values.http}: the port must be an integer from 0 to 65535` };
    transport = { kind: 'http', port, host: values.host ?? DEFAULT_HOST };
  } else if (values.host !== undefined) {
    return { ok: false, message: '--host only applies to HTTP mode; add --http PORT' };
  }
  if (values.host === '') return { ok: false, message: '--host must not be empty' };
  if (values.state === '') return { ok: false, message: '--state needs a file path' };
  const cash = values['initial-cash'];
  if (cash !== undefined && !(/^\d+(\.\d{1,2})?$/.test(cash) && Number(cash) <= MAX_INITIAL_CASH_EUR)) {
    return {
      ok: false,
      message: `--initial-cash ${cash}: expected an amount in EUR from 0 to ${MAX_INITIAL_CASH_EUR}, in whole cents`,
    };
  }

  const delays = new Map<string, number>();
  for (const spec of values.delay ?? []) {
    const match = /^([^=]+)=(\d+)$/.exec(spec);
    if (match === null)
      return { ok: false, message: `--delay ${spec}: expected TOOL=MS, e.g. --delay placeOrder=2000` };
    const [, tool = '', ms = ''] = match;
    const problem = toolName('--delay', tool, tools);
    if (problem !== undefined) return { ok: false, message: problem };
    if (Number(ms) > MAX_DELAY_MS) return { ok: false, message: `--delay ${spec}: at most ${MAX_DELAY_MS} ms` };
    delays.set(tool, Number(ms));
  }
  const exitOn = values['exit-on'] ?? [];
  const failOn = values['fail-on'] ?? [];
  for (const [option, list] of [
    ['--exit-on', exitOn],
    ['--fail-on', failOn],
  ] as const) {
    for (const tool of list) {
      const problem = toolName(option, tool, tools);
      if (problem !== undefined) return { ok: false, message: problem };
    }
  }

  const options: ServerOptions = {
    transport,
    faults: { delays, exitOn: new Set(exitOn), failOn: new Set(failOn) },
    help: values.help === true,
  };
  if (values.state !== undefined) options.statePath = values.state;
  if (cash !== undefined) options.initialCashEUR = Number(cash);
  return { ok: true, options };
}
