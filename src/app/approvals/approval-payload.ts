import type { JsonObject } from '../../core/index.ts';
import type { NotifyLinks, NotifyRound, WaitingCall } from './waiting-call.ts';

/** Arguments longer than this (pretty JSON) are cut in the plain texts; the JSON body keeps them whole. */
export const MAX_TEXT_ARGUMENTS_CHARS = 2000;

/** What one notification is about: the call, why it is sent, its links and where the run is in the console. */
export interface NotifySubject {
  call: WaitingCall;
  round: NotifyRound;
  /** Absent when no link could be issued (the notification then points to the console only). */
  links?: NotifyLinks;
  /** The run in the console. */
  consoleUrl: string;
}

/** Why a person is asked, in words. */
export function reasonText(call: WaitingCall): string {
  const base =
    call.reason === 'policy'
      ? call.kind === 'plan'
        ? 'the policy asks a person to approve this plan'
        : 'the policy asks a person to approve this call'
      : call.reason === 'untrusted_output'
        ? 'untrusted tool output entered the run before this call'
        : 'a write was sent and no answer came: it may or may not have happened';
  return call.detail === undefined ? base : `${base} (${call.detail})`;
}

function roundWords(round: NotifyRound): string {
  return round === 'first' ? '' : round === 'again' ? ' (reminder: still waiting)' : ' (escalated: no decision came)';
}

/** The one-line summary: chat fallback text and email subject. */
export function summaryLine(subject: NotifySubject): string {
  const { call } = subject;
  const what = call.kind === 'plan' ? 'a plan' : `${call.name} (${call.effect})`;
  const who = call.tenantId === undefined ? '' : ` for tenant ${call.tenantId}`;
  return `toolgate: ${what} waits for approval${who}${roundWords(subject.round)}`;
}

/** The arguments as a person reads them: pretty JSON, cut to `max` characters. */
export function argumentsText(args: JsonObject, max: number = MAX_TEXT_ARGUMENTS_CHARS): string {
  const text = JSON.stringify(args, null, 2);
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters in the console)`;
}

/** Plain text a mailer can send as it is. */
export function emailText(subject: NotifySubject): { subject: string; text: string } {
  const { call, links } = subject;
  const lines = [
    `${call.kind === 'plan' ? 'A plan' : `The tool call ${call.name}`} waits for a person's decision.`,
    '',
    `Run:      ${call.runId}`,
    ...(call.tenantId === undefined ? [] : [`Tenant:   ${call.tenantId}`]),
    ...(call.userId === undefined ? [] : [`User:     ${call.userId}`]),
    ...(call.threadId === undefined ? [] : [`Thread:   ${call.threadId}`]),
    `Tool:     ${call.name} (${call.effect})`,
    `Call id:  ${call.toolCallId}`,
    `Why:      ${reasonText(call)}`,
    `Waiting since ${call.since}${roundWords(subject.round)}`,
    '',
    'Arguments:',
    argumentsText(call.arguments),
    '',
    ...(links === undefined
      ? [`Decide in the console: ${subject.consoleUrl}`]
      : [
          `Approve: ${links.approve}`,
          `Reject:  ${links.reject}`,
          `Open:    ${links.open}`,
          '',
          `The links work once and until ${links.expiresAt}. The run in the console: ${subject.consoleUrl}`,
        ]),
  ];
  return { subject: summaryLine(subject), text: `${lines.join('\n')}\n` };
}

/**
 * toolgate's JSON notification body (`format: json`, docs/approvals.md): the run, the call as a person sees it, why,
 * the links, a short `text` and a ready `email`.
 */
export function jsonPayload(subject: NotifySubject): JsonObject {
  const { call, links } = subject;
  return {
    type: 'approval.waiting',
    round: subject.round,
    run: {
      id: call.runId,
      ...(call.tenantId === undefined ? {} : { tenantId: call.tenantId }),
      ...(call.userId === undefined ? {} : { userId: call.userId }),
      ...(call.threadId === undefined ? {} : { threadId: call.threadId }),
      url: subject.consoleUrl,
    },
    call: {
      toolCallId: call.toolCallId,
      name: call.name,
      effect: call.effect,
      ...(call.kind === undefined ? {} : { kind: call.kind }),
      arguments: call.arguments,
      waitingSince: call.since,
    },
    reason: {
      code: call.reason,
      ...(call.detail === undefined ? {} : { detail: call.detail }),
      text: reasonText(call),
    },
    ...(links === undefined ? {} : { links: { ...links } }),
    text: `${summaryLine(subject)}: ${links?.open ?? subject.consoleUrl}`,
    email: emailText(subject),
  };
}
