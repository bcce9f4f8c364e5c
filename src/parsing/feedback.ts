import { excerpt } from './extract-context.ts';
import { closestTool } from './tool-names.ts';
import { TOOL_CALL_FORMAT } from './tool-prompt.ts';
import { CALL_FAILURE_CODES } from './types.ts';
import type { ParseDiagnostic } from './types.ts';

/**
 * The message sent back to a model whose tool call could not be used (seed
 * 002 retries up to three times with the parse error): what exactly was wrong
 * and where, the expected format, and the tools it may call.
 */

export interface ParseFeedbackInput {
  diagnostics: readonly ParseDiagnostic[];
  /** The model's reply the diagnostics refer to. */
  text: string;
  tools: readonly string[];
  /** The attempt that failed (1-based). */
  attempt: number;
  maxAttempts: number;
}

const JSON_RULES =
  'strict JSON: double-quoted keys and strings, no comments, ' +
  'no trailing commas, line breaks inside strings escaped as \\n';

function describe(diagnostic: ParseDiagnostic, input: ParseFeedbackInput): string {
  const name = diagnostic.name;
  const toolList = input.tools.length === 0 ? '(none)' : input.tools.join(', ');
  switch (diagnostic.code) {
    case 'unknown_tool': {
      const closest = diagnostic.suggestion ?? (name === undefined ? undefined : closestTool(name, input.tools));
      const hint = closest === undefined ? '' : ` Did you mean "${closest}"?`;
      return `There is no tool named "${name ?? '?'}".${hint} Available tools: ${toolList}.`;
    }
    case 'truncated':
      return (
        `Your reply was cut off before the call${name === undefined ? '' : ` to "${name}"`} ` +
        `was complete. Send shorter arguments, or one call at a time.`
      );
    case 'invalid_json': {
      if (diagnostic.position === undefined) return diagnostic.message;
      const reason = diagnostic.message.replace(/^Invalid JSON[^:]*: /, '').replace(/\. Near: [\s\S]*$/, '');
      const where = name === undefined ? '' : ` in the call to "${name}"`;
      return (
        `Invalid JSON${where} at position ${diagnostic.position}: ${reason}. ` +
        `Near: «${excerpt(input.text, diagnostic.position)}». Use ${JSON_RULES}.`
      );
    }
    case 'missing_arguments':
      return (
        `The call to "${name ?? '?'}" has no "arguments" object. Put ` +
        `the arguments in "arguments": {…} (use {} if there are none).`
      );
    case 'malformed_call':
      // Where the call broke and what was expected are in the message; the text there shows the model its slip.
      if (diagnostic.position === undefined || diagnostic.message.includes('Near:')) return diagnostic.message;
      return `${diagnostic.message.replace(/\.$/, '')}. Near: «${excerpt(input.text, diagnostic.position)}».`;
    default:
      return diagnostic.message;
  }
}

export function formatParseFeedback(input: ParseFeedbackInput): string {
  const problems = [
    ...new Set(input.diagnostics.filter((d) => CALL_FAILURE_CODES.includes(d.code)).map((d) => describe(d, input))),
  ];
  const lines: string[] = [
    `Your last reply tried to call a tool, but the call could not ` +
      `be used (attempt ${input.attempt} of ${input.maxAttempts}).`,
  ];
  if (problems.length === 0) lines.push('It could not be read as a tool call.');
  else lines.push('', 'Problems:', ...problems.map((problem, i) => `${i + 1}. ${problem}`));
  lines.push(
    '',
    'Expected format, one block per call:',
    TOOL_CALL_FORMAT,
    `The block's content must be ${JSON_RULES}.`,
    `Available tools: ${input.tools.length === 0 ? '(none)' : input.tools.join(', ')}.`,
    'If you do not need a tool, answer in plain text.',
  );
  if (input.attempt + 1 >= input.maxAttempts) lines.push('This is your last attempt.');
  return lines.join('\n');
}
