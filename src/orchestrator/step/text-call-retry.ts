import type { ExtractionResult, ParseDiagnostic } from '../../parsing/index.ts';

/**
 * Native mode with `textToolCalls: auto`: the reply of a run, counted from its
 * start, at which a model that writes its calls as text after prose is switched
 * to prompted mode for the rest of the run. The first time it is only told to
 * use the tool-calling interface: one slip is common even in models whose
 * native calls work; a second one says the model does not use them.
 */
export const DEFAULT_TEXT_CALLS_BEFORE_PROMPTED = 2;

/** The parse_retry diagnostic code of a call written as text in native mode. */
export const CALL_WRITTEN_AS_TEXT = 'call_written_as_text';

/**
 * The declared tools a reply's text calls (or failed calls) name. Only declared
 * names: the text may repeat a tool output's planted call, and the feedback
 * must not hand the model anything else of it.
 */
export function namesOfTextCalls(
  result: ExtractionResult,
  failures: readonly ParseDiagnostic[],
  declared: readonly string[],
): string[] {
  const names = [
    ...result.calls.map((c) => c.name),
    ...failures.flatMap((f) => (f.name === undefined ? [] : [f.name])),
  ];
  return [...new Set(names.filter((name) => declared.includes(name)))];
}

export interface TextCallFeedbackInput {
  names: readonly string[];
  attempt: number;
  maxAttempts: number;
  /** The run was switched to prompted mode: the calls now go in the text, as the system prompt says. */
  switched: boolean;
}

/** What the model is told when its call, written as text in native mode, was not run. */
export function textCallFeedback(input: TextCallFeedbackInput): string {
  const which = whichCall(input.names);
  const attempt = `attempt ${input.attempt} of ${input.maxAttempts}`;
  const lines = [`Your last reply wrote ${which} as text in the answer; it was not run (${attempt}).`];
  if (input.switched) {
    lines.push(
      'From now on the tools are described in the system prompt: ' +
        'to call one, reply with the call exactly in the format given there.',
    );
  } else {
    lines.push(
      'Calls written as text are not run. ' +
        'Make the call through the tool-calling interface (a native tool call of your reply), not as text.',
      'If you did not mean to call a tool, give your answer again without the call.',
    );
  }
  if (input.attempt + 1 >= input.maxAttempts) lines.push('This is your last attempt.');
  return lines.join('\n');
}

/** The parse_retry diagnostic that goes with the feedback. */
export function textCallDiagnostic(names: readonly string[], switched: boolean): { code: string; message: string } {
  const which = whichCall(names);
  return {
    code: CALL_WRITTEN_AS_TEXT,
    message: switched
      ? `the model wrote ${which} as text again in native mode: ` +
        'the run continues in prompted mode and the model was asked again'
      : `the model wrote ${which} as text in native mode: ` +
        'it was not run, and the model was asked to use the tool-calling interface',
  };
}

function whichCall(names: readonly string[]): string {
  return names.length === 0 ? 'a tool call' : `a call to ${names.map((n) => `"${n}"`).join(', ')}`;
}
