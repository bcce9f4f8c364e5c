import type { JsonObject } from '../../core/index.ts';
import { argumentsText, reasonText, summaryLine, type NotifySubject } from './approval-payload.ts';

/** Slack's limit on a section's text. */
export const SLACK_SECTION_MAX_CHARS = 3000;
/** Slack's limit on one field's (and one context element's) text. */
const SLACK_FIELD_MAX_CHARS = 2000;
/** Room kept for the heading line of the call's section. */
const SECTION_HEAD_CHARS = 400;

/**
 * Model-made text in Slack mrkdwn: `&`, `<` and `>` are control characters (a `<url|label>` link, a `<!channel>`
 * mention), so they are escaped as Slack asks; three backticks would end the code block, so they are broken up.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/```/g, '`\u200b`\u200b`');
}

/** Cut to `max` characters, saying so. */
function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Escaped and capped: escaping comes first, so the cut never splits an entity's meaning into a control character. */
function safe(text: string, max: number = SLACK_FIELD_MAX_CHARS): string {
  return cap(escapeMrkdwn(text), max);
}

/**
 * A Slack incoming-webhook message (`format: slack`): a `text` fallback and Block Kit blocks — the call, its
 * arguments, who and why, and Approve / Reject / Open buttons that open the decision links.
 */
export function slackPayload(subject: NotifySubject): JsonObject {
  const { call, links } = subject;
  const head = safe(summaryLine(subject).replace(/^toolgate: /, ''), SECTION_HEAD_CHARS);
  // The code block's fences and the head take their share of the section's 3000 characters.
  const room = SLACK_SECTION_MAX_CHARS - head.length - 10;
  const args = cap(escapeMrkdwn(argumentsText(call.arguments, room)), room);
  const fields = [
    `*Run*\n${safe(call.runId)}`,
    ...(call.tenantId === undefined ? [] : [`*Tenant*\n${safe(call.tenantId)}`]),
    ...(call.userId === undefined ? [] : [`*User*\n${safe(call.userId)}`]),
    ...(call.threadId === undefined ? [] : [`*Thread*\n${safe(call.threadId)}`]),
    `*Why*\n${safe(reasonText(call))}`,
  ].map((text) => ({ type: 'mrkdwn', text }));
  const buttons = [
    ...(links === undefined
      ? []
      : [
          { type: 'button', text: { type: 'plain_text', text: 'Approve' }, style: 'primary', url: links.approve },
          { type: 'button', text: { type: 'plain_text', text: 'Reject' }, style: 'danger', url: links.reject },
        ]),
    { type: 'button', text: { type: 'plain_text', text: 'Open' }, url: links?.open ?? subject.consoleUrl },
  ];
  const context = links === undefined ? 'Decide in the console.' : `The links work once, until ${links.expiresAt}.`;
  return {
    text: cap(summaryLine(subject), SLACK_FIELD_MAX_CHARS),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${head}*\n\`\`\`${args}\`\`\`` } },
      { type: 'section', fields },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${safe(call.toolCallId)} · ${safe(context)}` }] },
      { type: 'actions', elements: buttons },
    ],
  };
}
