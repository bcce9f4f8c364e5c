import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { framesOf, parseResumePoint } from './ui-sse-writer.ts';

describe('UI stream resume points', () => {
  it('an event id resumes after all of its chunks, <id>:<n> after its first n; ?after= as an event id', () => {
    assert.deepEqual(parseResumePoint(undefined, undefined), { eventId: 0, chunks: 0 });
    assert.deepEqual(parseResumePoint('12', undefined), { eventId: 12, chunks: Number.POSITIVE_INFINITY });
    assert.deepEqual(parseResumePoint(' 12:2 ', '3'), { eventId: 12, chunks: 2 });
    assert.deepEqual(parseResumePoint(undefined, '7'), { eventId: 7, chunks: Number.POSITIVE_INFINITY });
    assert.throws(() => parseResumePoint('run_1', undefined), /Last-Event-ID must be an id this stream sent/);
    assert.throws(() => parseResumePoint(undefined, '-1'), /after must be a non-negative integer/);
  });

  it("frames carry <id>:<n> but for an event's last chunk; a resume point leaves out what the client had", () => {
    const chunks = [{ type: 'finish-step' } as const, { type: 'finish', finishReason: 'stop' } as const];
    assert.equal(
      framesOf(5, chunks, { eventId: 0, chunks: 0 }),
      'id: 5:1\ndata: {"type":"finish-step"}\n\nid: 5\ndata: {"type":"finish","finishReason":"stop"}\n\n',
    );
    assert.equal(
      framesOf(5, chunks, { eventId: 5, chunks: 1 }),
      'id: 5\ndata: {"type":"finish","finishReason":"stop"}\n\n',
    );
    assert.equal(framesOf(5, chunks, { eventId: 5, chunks: Number.POSITIVE_INFINITY }), '');
    assert.equal(framesOf(4, chunks, { eventId: 5, chunks: 0 }), '');
    assert.equal(framesOf(6, chunks, { eventId: 5, chunks: 1 }).split('data:').length, 3);
  });
});
