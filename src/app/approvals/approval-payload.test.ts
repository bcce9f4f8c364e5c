import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isJsonObject, type JsonValue } from '../../core/index.ts';
import { jsonPayload, type NotifySubject } from './approval-payload.ts';
import { escapeMrkdwn, slackPayload, SLACK_SECTION_MAX_CHARS } from './slack-payload.ts';

const subject: NotifySubject = {
  call: {
    runId: 'run_1',
    tenantId: 'acme',
    userId: 'alice',
    threadId: 't1',
    toolCallId: 'call_1',
    name: 'placeOrder',
    arguments: { volumeMwh: 7000, note: '<!channel> & <https://evil.example|click>' },
    effect: 'write',
    reason: 'policy',
    since: '2025-01-01T00:00:00.000Z',
  },
  round: 'first',
  links: {
    approve: 'https://tg.example/v1/approvals/A',
    reject: 'https://tg.example/v1/approvals/R',
    open: 'https://tg.example/#/runs/run_1',
    expiresAt: '2025-01-02T00:00:00.000Z',
  },
  consoleUrl: 'https://tg.example/#/runs/run_1',
};

function at(value: JsonValue | undefined, ...path: (string | number)[]): JsonValue | undefined {
  let here = value;
  for (const key of path) {
    if (Array.isArray(here) && typeof key === 'number') here = here[key];
    else if (isJsonObject(here) && typeof key === 'string') here = here[key];
    else return undefined;
  }
  return here;
}

describe('approval notification payloads', () => {
  it('json: the run, the call as shown, why, the links, a text and a ready email', () => {
    const body = jsonPayload(subject);
    assert.equal(body['type'], 'approval.waiting');
    assert.equal(body['round'], 'first');
    assert.deepEqual(body['run'], {
      id: 'run_1',
      tenantId: 'acme',
      userId: 'alice',
      threadId: 't1',
      url: 'https://tg.example/#/runs/run_1',
    });
    assert.deepEqual(at(body, 'call', 'arguments'), subject.call.arguments);
    assert.equal(at(body, 'call', 'effect'), 'write');
    assert.equal(at(body, 'reason', 'code'), 'policy');
    assert.deepEqual(body['links'], subject.links);
    assert.match(String(body['text']), /placeOrder \(write\) waits for approval for tenant acme/);
    const email = String(at(body, 'email', 'text'));
    assert.match(String(at(body, 'email', 'subject')), /^toolgate: placeOrder/);
    assert.match(email, /Approve: https:\/\/tg\.example\/v1\/approvals\/A\n/);
    assert.match(email, /Reject: {2}https:\/\/tg\.example\/v1\/approvals\/R\n/);
    assert.match(email, /"volumeMwh": 7000/);
    assert.match(email, /Tenant: {3}acme/);
  });

  it('email: an unknown outcome says what happened; long arguments are cut in the text, whole in the JSON', () => {
    const long = { blob: 'x'.repeat(5000) };
    const body = jsonPayload({
      ...subject,
      round: 'escalation',
      call: { ...subject.call, reason: 'outcome_unknown', detail: 'did not answer within 5000 ms', arguments: long },
    });
    const email = String(at(body, 'email', 'text'));
    assert.match(email, /no answer came: it may or may not have happened \(did not answer within 5000 ms\)/);
    assert.match(email, /more characters in the console/);
    assert.ok(email.length < 3500);
    assert.deepEqual(at(body, 'call', 'arguments'), long);
    assert.match(String(at(body, 'email', 'subject')), /escalated/);
  });

  it('slack: fallback text, the call, fields, and Approve/Reject/Open buttons opening the links', () => {
    const message = slackPayload(subject);
    assert.match(String(message['text']), /placeOrder/);
    const blocks = at(message, 'blocks');
    assert.ok(Array.isArray(blocks));
    const actions = blocks.find((b) => at(b, 'type') === 'actions');
    const buttons = at(actions, 'elements');
    assert.ok(Array.isArray(buttons));
    assert.deepEqual(
      buttons.map((b) => [at(b, 'text', 'text'), at(b, 'style') ?? null, at(b, 'url')]),
      [
        ['Approve', 'primary', subject.links?.approve],
        ['Reject', 'danger', subject.links?.reject],
        ['Open', null, subject.links?.open],
      ],
    );
    const section = String(at(blocks, 0, 'text', 'text'));
    // Model-made text cannot mention a channel or make a link: Slack's control characters are escaped.
    assert.ok(!section.includes('<!channel>'));
    assert.ok(section.includes('&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;'));
    assert.ok(blocks.some((b) => at(b, 'type') === 'section' && Array.isArray(at(b, 'fields'))));
  });

  it('slack: a huge argument stays within the section limit; code fences in arguments cannot close the block', () => {
    const message = slackPayload({
      ...subject,
      call: { ...subject.call, arguments: { a: '<>&'.repeat(3000), b: '```' } },
    });
    const section = String(at(message, 'blocks', 0, 'text', 'text'));
    assert.ok(section.length <= SLACK_SECTION_MAX_CHARS, `section has ${section.length} characters`);
    assert.equal(escapeMrkdwn('a```b').includes('```'), false);
    assert.equal(section.match(/```/g)?.length, 2);
  });

  it('without links: the console only, and no decision buttons', () => {
    const { links: _links, ...noLinks } = subject;
    const message = slackPayload(noLinks);
    const buttons = at(message, 'blocks', 3, 'elements');
    assert.ok(Array.isArray(buttons));
    assert.deepEqual(
      buttons.map((b) => at(b, 'text', 'text')),
      ['Open'],
    );
    assert.match(String(at(jsonPayload(noLinks), 'email', 'text')), /Decide in the console: https:\/\/tg\.example/);
  });
});
