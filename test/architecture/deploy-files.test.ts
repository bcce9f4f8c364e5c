// The deployment example (deploy/): its configuration loads as toolgate reads it,
// and the compose file wires two instances to one PostgreSQL behind a balancer
// that streams SSE unbuffered.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load-config.ts';

const ENV = { TOOLGATE_API_KEY: 'key-0123456789abcdef', TOOLGATE_SESSION_SECRET: 's'.repeat(40) };

describe('deploy/', () => {
  it('toolgate.yaml loads, with its keys and session secret from the environment', () => {
    const { config } = loadConfig({ cwd: 'deploy', env: ENV, file: 'toolgate.yaml' });
    assert.equal(config.server?.sessionSecret, ENV.TOOLGATE_SESSION_SECRET);
    assert.deepEqual(config.tenants?.['acme']?.apiKeys, [ENV.TOOLGATE_API_KEY]);
    assert.equal(config.server?.store, undefined, 'the store comes from DATABASE_URL');
  });

  it('docker-compose.yml: two instances on one PostgreSQL, the same secret on both, behind the balancer', () => {
    const compose = parse(readFileSync('deploy/docker-compose.yml', 'utf8'), { merge: true }) as {
      services: Record<
        string,
        {
          environment?: Record<string, string>;
          build?: { dockerfile: string };
          depends_on?: unknown;
          volumes?: string[];
        }
      >;
    };
    const instances = ['toolgate-a', 'toolgate-b'].map((name) => compose.services[name]);
    for (const instance of instances) {
      assert.match(instance?.environment?.['DATABASE_URL'] ?? '', /^postgres:\/\/.*@postgres:5432\/toolgate$/);
      assert.match(instance?.environment?.['TOOLGATE_SESSION_SECRET'] ?? '', /TOOLGATE_SESSION_SECRET/);
      assert.ok(
        existsSync(`deploy/${(instance?.build?.dockerfile ?? '').replace(/^deploy\//, '')}`),
        'the Dockerfile exists',
      );
      assert.ok(instance?.volumes?.some((v) => v.startsWith('./toolgate.yaml:')));
    }
    assert.ok(compose.services['postgres'] !== undefined && compose.services['balancer'] !== undefined);
    const nginx = readFileSync('deploy/nginx.conf', 'utf8');
    assert.match(nginx, /server toolgate-a:8787/);
    assert.match(nginx, /server toolgate-b:8787/);
    assert.match(nginx, /proxy_buffering off;/);
    assert.match(nginx, /proxy_set_header Host \$http_host;/);
  });
});
