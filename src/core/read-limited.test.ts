import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { readLimited } from './read-limited.ts';

function body(chunks: Buffer[], headers: Record<string, string> = {}): Readable & { headers: Record<string, string> } {
  return Object.assign(Readable.from(chunks), { headers });
}

describe('readLimited', () => {
  it('returns a body within the limit whole', async () => {
    const read = await readLimited(body([Buffer.from('ab'), Buffer.from('cd')]), { maxBytes: 4, discardBytes: 10 });
    assert.equal(read.kind, 'ok');
    assert.equal(read.kind === 'ok' ? Buffer.from(read.bytes).toString() : '', 'abcd');
  });

  it('reads a body over the limit to its end within the discard bound (drained), and stops past it', async () => {
    assert.deepEqual(await readLimited(body([Buffer.alloc(5), Buffer.alloc(5)]), { maxBytes: 4, discardBytes: 10 }), {
      kind: 'too_large',
      drained: true,
    });
    const endless = new Readable({
      read() {
        this.push(Buffer.alloc(1024));
      },
    });
    const read = await readLimited(Object.assign(endless, { headers: {} }), { maxBytes: 4, discardBytes: 10_000 });
    assert.deepEqual(read, { kind: 'too_large', drained: false });
    assert.ok(endless.isPaused(), 'reading stopped');
    endless.destroy();
  });

  it('answers a Content-Length beyond the discard bound without reading', async () => {
    const source = body([Buffer.alloc(1)], { 'content-length': '1000' });
    assert.deepEqual(await readLimited(source, { maxBytes: 4, discardBytes: 10 }), {
      kind: 'too_large',
      drained: false,
    });
    assert.equal(source.readableFlowing, false, 'never set flowing');
  });
});
