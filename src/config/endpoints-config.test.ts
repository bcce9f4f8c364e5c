import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { describePatternFinding, toolPatternUses } from '../app/tool-pattern-check.ts';
import { checkToolPatterns } from '../gate/index.ts';
import { parseConfig, readConfigFile } from './load-config.ts';
import { resolveSettings } from './resolve-settings.ts';
import { configProblems } from '../../test/support/config-problems.ts';

const problems = (config: Record<string, unknown>): string[] => configProblems(config);

describe('config: gateway.endpoints (virtual servers)', () => {
  it('accepts endpoints with every key, and /mcp itself', () => {
    assert.deepEqual(
      problems({
        gateway: {
          identity: { tenant: 'desk', endpoint: '/mcp/trading' },
          endpoints: {
            '/mcp/trading': {
              tools: ['px/*'],
              servers: ['px'],
              tenants: ['desk'],
              deny: ['px/cancel*'],
              approve: ['px/placeOrder'],
              dryRun: true,
              description: 'Trading desk tools',
              instructions: 'Orders need a person.',
            },
            '/mcp': { tools: ['px/get*'] },
          },
        },
      }),
      [],
    );
  });

  it('refuses a path that is not /mcp/<name>, saying how to write it', () => {
    for (const path of ['/trading', '/mcp/', '/mcp/trading/', '/mcp/Trading', '/mcp/a/b', '/mcpx']) {
      const found = problems({ gateway: { endpoints: { [path]: { tools: ['px/*'] } } } });
      assert.equal(found.length, 1, `${path}: ${found.join('; ')}`);
      assert.match(found[0] ?? '', /gateway\.endpoints/);
      assert.match(found[0] ?? '', /is not an endpoint path: write "\/mcp\/" and one name/);
    }
  });

  it('refuses an endpoint without tools, an unknown key and a bad tool pattern', () => {
    const found = problems({
      gateway: { endpoints: { '/mcp/ops': { tools: [], policy: {}, deny: ['px/a b'] } } },
    });
    assert.ok(
      found.some((p) => /tools.*at least one tool pattern/.test(p)),
      found.join('; '),
    );
    assert.ok(
      found.some((p) => /policy/.test(p)),
      found.join('; '),
    );
    assert.ok(
      found.some((p) => /deny.*tool pattern/.test(p)),
      found.join('; '),
    );
  });

  it('refuses gateway.identity.endpoint naming no endpoint', () => {
    const found = problems({
      gateway: { identity: { endpoint: '/mcp/ops' }, endpoints: { '/mcp/trading': { tools: ['px/*'] } } },
    });
    assert.equal(found.length, 1, found.join('; '));
    assert.match(found[0] ?? '', /identity\.endpoint.*"\/mcp\/ops".*not a key of gateway\.endpoints.*\/mcp\/trading/);
  });

  it('refuses a duplicate endpoint path in the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-endpoints-'));
    try {
      const file = join(dir, 'toolgate.yaml');
      writeFileSync(file, 'gateway:\n  endpoints:\n    /mcp/ops:\n      tools: [a]\n    /mcp/ops:\n      tools: [b]\n');
      assert.throws(() => readConfigFile(file), /not valid YAML: .*[Mm]ap keys must be unique/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks endpoint tool patterns like every other (an unknown one is named, with the closest tool)', () => {
    const config = parseConfig(
      { gateway: { endpoints: { '/mcp/ops': { tools: ['px/getPrice'], deny: ['px/placeOrdr'] } } } },
      { source: 'toolgate.yaml', env: {} },
    );
    const settings = resolveSettings(config, {}, {});
    const uses = toolPatternUses(settings);
    const findings = checkToolPatterns({
      uses,
      tools: [
        { server: 'px', tool: 'getPrice', exposedName: 'getPrice' },
        { server: 'px', tool: 'placeOrder', exposedName: 'placeOrder' },
      ],
      unknownServers: [],
    });
    assert.equal(findings.length, 1);
    const [finding] = findings;
    assert.ok(finding !== undefined);
    assert.equal(
      describePatternFinding(finding),
      '"px/placeOrdr" in gateway.endpoints["/mcp/ops"].deny matches no tool — did you mean "px/placeOrder"? ' +
        '(the rule applies to nothing)',
    );
  });
});
