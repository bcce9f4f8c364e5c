// The gate's safety properties, over random policies, tenants and arguments.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '../core/json.ts';
import { applyInjection } from './apply-injection.ts';
import { createRedactor, DEFAULT_REDACT_PATTERNS, REDACTED } from './create-redactor.ts';
import { decide } from './decide.ts';
import { isToolAllowed } from './is-tool-allowed.ts';
import { matchToolPattern, type ToolRef } from './match-tool-pattern.ts';
import type { Policy, ResolvedToolPolicy } from './policy.ts';
import { ECHO, GET_ORDER_BOOK, PLACE_ORDER, WRITE_FILE } from '../../test/support/test-tools.ts';

const SERVERS = ['power-exchange', 'filesystem', 'everything'];
const TOOLS = ['placeOrder', 'getOrderBook', 'write_file', 'read_file', 'echo'];

const toolRef: fc.Arbitrary<ToolRef> = fc
  .record({ server: fc.constantFrom(...SERVERS), tool: fc.constantFrom(...TOOLS) })
  .map(({ server, tool }) => ({ server, tool, exposedName: `${server}_${tool}` }));

const pattern: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('*', '**', ...TOOLS, ...SERVERS.map((s) => `${s}/*`), 'get*', '*File', 'power-exchange/place*'),
  fc
    .record({ server: fc.constantFrom(...SERVERS), tool: fc.constantFrom(...TOOLS) })
    .map(({ server, tool }) => `${server}/${tool}`),
);

const patterns = fc.array(pattern, { maxLength: 5 });
const plain = (arb: fc.Arbitrary<unknown>): fc.Arbitrary<JsonObject> =>
  arb.map((v) => JSON.parse(JSON.stringify(v)) as JsonObject);

describe('gate properties', () => {
  it('deny always wins over allow', () => {
    fc.assert(
      fc.property(patterns, patterns, toolRef, fc.boolean(), (allow, deny, tool, withAllow) => {
        const policy: Policy = { tools: {}, tenants: { t: withAllow ? { allow, deny } : { deny } } };
        const result = isToolAllowed(policy, { tenantId: 't' }, tool);
        const denied = deny.some((p) => matchToolPattern(p, tool));
        const allowed = !withAllow || allow.some((p) => matchToolPattern(p, tool));
        assert.equal(result.allowed, !denied && allowed);
        if (denied) assert.ok(result.rule !== undefined && deny.includes(result.rule));
        if (!result.allowed) assert.ok((result.reason ?? '').length > 0);
      }),
      { numRuns: 500 },
    );
  });

  it("a deny, the tenant's or a held role's, always wins; roles the caller does not hold change nothing", () => {
    const roleName = fc.constantFrom('trader', 'viewer', 'intern', 'admin');
    const roleRule = fc.record({ allow: patterns, deny: patterns }, { requiredKeys: [] });
    fc.assert(
      fc.property(
        fc.record({ allow: patterns, deny: patterns }, { requiredKeys: [] }),
        fc.dictionary(roleName, roleRule),
        fc.uniqueArray(roleName, { maxLength: 3 }),
        toolRef,
        (tenant, roles, held, tool) => {
          const policy: Policy = { tools: {}, tenants: { t: { ...tenant, roles } } };
          const result = isToolAllowed(policy, { tenantId: 't', roles: held }, tool);
          const heldRules = held.flatMap((role) => (Object.hasOwn(roles, role) ? [roles[role] ?? {}] : []));
          const matches = (list: string[] | undefined) => (list ?? []).some((p) => matchToolPattern(p, tool));
          if (matches(tenant.deny) || heldRules.some((rule) => matches(rule.deny))) assert.equal(result.allowed, false);
          else {
            const allowed =
              tenant.allow === undefined || matches(tenant.allow) || heldRules.some((r) => matches(r.allow));
            assert.equal(result.allowed, allowed);
          }
          if (!result.allowed) assert.ok((result.reason ?? '').length > 0);
          const onlyHeld = Object.fromEntries(
            Object.entries(roles).filter(([role]) => new Set<string>(held).has(role)),
          );
          const without: Policy = { tools: {}, tenants: { t: { ...tenant, roles: onlyHeld } } };
          const same = isToolAllowed(without, { tenantId: 't', roles: held }, tool);
          assert.equal(same.allowed, result.allowed);
          assert.equal(same.rule, result.rule);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('an injected key can never be set by the model', () => {
    const key = fc.constantFrom('userId', 'tenantId', 'accountId', '__proto__', 'constructor');
    fc.assert(
      fc.property(
        fc.uniqueArray(key, { minLength: 1, maxLength: 3 }),
        plain(fc.dictionary(fc.oneof(key, fc.string()), fc.jsonValue({ maxDepth: 2 }))),
        fc.string({ minLength: 1 }),
        (keys, modelArgs, userId) => {
          const inject = Object.fromEntries(keys.map((k) => [k, '{{user.id}}']));
          const result = applyInjection({ arguments: modelArgs, inject, context: { user: { id: userId } } });
          for (const k of keys) {
            assert.ok(Object.hasOwn(result.arguments, k));
            assert.equal(result.arguments[k], userId);
            const entry = result.injected.find((e) => e.key === k);
            assert.equal(entry?.overridden, Object.hasOwn(modelArgs, k));
          }
          assert.deepEqual(result.missing, []);
        },
      ),
    );
  });

  it('an injected key with a missing value is never left with the model value', () => {
    fc.assert(
      fc.property(plain(fc.record({ userId: fc.jsonValue() })), (modelArgs) => {
        const result = applyInjection({ arguments: modelArgs, inject: { userId: '{{user.id}}' }, context: {} });
        assert.ok(!Object.hasOwn(result.arguments, 'userId'));
        assert.deepEqual(result.missing, ['user.id']);
      }),
    );
  });

  it('in a dry run no write is ever allowed', () => {
    const resolved: fc.Arbitrary<ResolvedToolPolicy> = fc.record({
      effect: fc.constantFrom('read' as const, 'write' as const),
      effectSource: fc.constantFrom('config' as const, 'annotation' as const, 'default' as const),
      approval: fc.constantFrom('required' as const, 'auto' as const, 'never' as const),
      inject: fc.constant({}),
      returnDirect: fc.boolean(),
      untrusted: fc.boolean(),
      untrustedSource: fc.constantFrom('config' as const, 'annotation' as const, 'default' as const),
      unknownOutcome: fc.constantFrom('ask' as const, 'tell_model' as const),
    });
    fc.assert(
      fc.property(
        resolved,
        fc.constantFrom(PLACE_ORDER, GET_ORDER_BOOK, WRITE_FILE, ECHO),
        fc.boolean(),
        fc.option(fc.boolean(), { nil: undefined }),
        (policy, tool, allowed, approvalGranted) => {
          const input = { tool, exposedName: tool.name, arguments: {}, policy, allowed: { allowed }, dryRun: true };
          const decision = decide(approvalGranted === undefined ? input : { ...input, approvalGranted });
          if (policy.effect === 'write') assert.notEqual(decision.kind, 'allow');
          if (!allowed) assert.equal(decision.kind, 'deny');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('after untrusted output no write runs without a person, whatever the rule', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('required' as const, 'auto' as const, 'never' as const),
        fc.constantFrom('config' as const, 'annotation' as const, 'default' as const),
        fc.boolean(),
        (approval, effectSource, allowed) => {
          const policy: ResolvedToolPolicy = {
            effect: 'write',
            effectSource,
            approval,
            inject: {},
            returnDirect: false,
            untrusted: false,
            untrustedSource: 'default',
            unknownOutcome: 'ask',
          };
          const decision = decide({
            tool: PLACE_ORDER,
            exposedName: 'placeOrder',
            arguments: {},
            policy,
            allowed: { allowed },
            dryRun: false,
            tainted: true,
          });
          assert.notEqual(decision.kind, 'allow');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('redaction removes every matching key at any depth', () => {
    const sensitive = fc.constantFrom(
      'password',
      'api_key',
      'Authorization',
      'accessToken',
      'client-secret',
      'X-Api-Key',
      'dbPassword',
    );
    const harmless = fc.constantFrom('user', 'symbol', 'qty', 'path', 'items', 'name');
    const tree: fc.Arbitrary<JsonValue> = fc.letrec<{ node: JsonValue }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.oneof(sensitive, harmless), tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    const redact = createRedactor();
    const matches = (key: string) =>
      DEFAULT_REDACT_PATTERNS.some((p) => key.toLowerCase().replace(/[-_]/g, '').includes(p.toLowerCase()));
    const check = (value: JsonValue): void => {
      if (Array.isArray(value)) value.forEach(check);
      else if (value !== null && typeof value === 'object') {
        for (const [key, item] of Object.entries(value)) {
          if (matches(key)) assert.equal(item, REDACTED, `key ${key}`);
          else check(item);
        }
      }
    };
    fc.assert(
      fc.property(plain(tree), (value) => {
        const out = redact(value);
        check(out);
        // Harmless leaves survive: redacting twice changes nothing more.
        assert.deepEqual(redact(out), out);
      }),
      { numRuns: 300 },
    );
  });
});
