import type { JsonValue, Run, RunEvent } from '../core/index.ts';
import type { CliIO } from './cli-io.ts';

const MAX_ARGS_CHARS = 160;
const MAX_RESULT_CHARS = 200;

export interface EventPrinter {
  print(event: RunEvent): void;
  /** Writes the closing summary once the run has ended. */
  end(run: Run): void;
}

/**
 * Human output: the answer streams to stdout; one line per tool call and per
 * result, and the summary, go to stderr (so `> answer.txt` captures the answer).
 * JSON output: every event on its own line, exactly as stored.
 */
export function createEventPrinter(options: { io: CliIO; json: boolean }): EventPrinter {
  const { io } = options;
  if (options.json) {
    return {
      print: (event) => io.stdout.write(`${JSON.stringify(event)}\n`),
      end: () => undefined,
    };
  }
  const color = io.stderr.isTTY === true && io.env['NO_COLOR'] === undefined;
  const dim = (s: string) => (color ? `\u001b[2m${s}\u001b[22m` : s);
  const red = (s: string) => (color ? `\u001b[31m${s}\u001b[39m` : s);
  const green = (s: string) => (color ? `\u001b[32m${s}\u001b[39m` : s);
  const started = Date.now();
  let streamedStep = 0;
  let lineOpen = false;
  const closeLine = () => {
    if (lineOpen) io.stdout.write('\n');
    lineOpen = false;
  };

  return {
    print(event) {
      switch (event.type) {
        case 'assistant_delta':
          streamedStep = event.data.step;
          io.stdout.write(event.data.text);
          lineOpen = !event.data.text.endsWith('\n');
          break;
        case 'assistant_message':
          // Not streamed (the model answered in one piece): print it now.
          if (streamedStep !== event.data.step && event.data.text !== '') {
            io.stdout.write(event.data.text);
            lineOpen = !event.data.text.endsWith('\n');
          }
          closeLine();
          break;
        case 'tool_call':
          closeLine();
          io.stderr.write(dim(`→ ${event.data.name}(${truncate(JSON.stringify(event.data.arguments), MAX_ARGS_CHARS)})\n`));
          break;
        case 'tool_result': {
          const text = resultText(event.data.content, event.data.structuredContent);
          const line = event.data.ok
            ? dim(`← ${event.data.name} ok ${event.data.latencyMs} ms: ${truncate(text, MAX_RESULT_CHARS)}`)
            : red(`← ${event.data.name} ${event.data.error?.code ?? 'error'}: ${truncate(event.data.error?.message ?? text, MAX_RESULT_CHARS)}`);
          io.stderr.write(`${line}\n`);
          break;
        }
        case 'run_failed':
          closeLine();
          io.stderr.write(red(`✗ run failed (${event.data.error.code}): ${event.data.error.message}\n`));
          break;
        case 'run_cancelled':
          closeLine();
          io.stderr.write(red(`✗ run cancelled\n`));
          break;
        default:
          break;
      }
    },
    end(run) {
      closeLine();
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const mark = run.status === 'completed' ? green('✓') : red('✗');
      io.stderr.write(
        `${mark} ${run.status} · ${run.steps} step${run.steps === 1 ? '' : 's'} · ${run.usage.totalTokens.toLocaleString('en-US')} tokens (${run.usage.promptTokens} in, ${run.usage.completionTokens} out) · ${seconds} s · ${run.id}\n`,
      );
    },
  };
}

function resultText(content: readonly { type: string; text?: string }[], structured: JsonValue | undefined): string {
  const text = content
    .map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type}]`))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text !== '' ? text : structured === undefined ? '' : JSON.stringify(structured);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
