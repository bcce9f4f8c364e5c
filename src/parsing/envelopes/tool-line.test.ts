import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findToolLines } from './tool-line.ts';

describe('findToolLines', () => {
  it('reads tool:name {json} at a line start, across lines', () => {
    const text = 'Checking.\ntool:set_mode {\n  "id": "p3"\n}\nok';
    const [env] = findToolLines(text);
    assert.equal(text.slice(env?.span.start, env?.span.end), 'tool:set_mode {\n  "id": "p3"\n}');
  });

  it('reads a bare tool:name line as a call without arguments', () => {
    const payload = findToolLines('tool:list_devices\nthen more')[0]?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.deepEqual(payload.args, { kind: 'none' });
  });

  it('ignores tool: inside a line and tool: followed by prose', () => {
    assert.deepEqual(findToolLines('Use the tool:get_x {"a": 1} form.\ntool: a hammer'), []);
  });
});
