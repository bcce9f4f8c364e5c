import { z } from 'zod';
import { GATEWAY_ENDPOINT_PATH } from '../core/runs.ts';
import { corsOriginProblem } from './cors-origin-problem.ts';
import { ipRangeProblem } from './ip-range-problem.ts';
import { MODEL_PATTERN } from './model-pattern.ts';
import { unknownProviderProblem } from './providers.ts';
import { providersSchema } from './providers-schema.ts';
import { serverConfigSchema, stringMapSchema } from './server-config-schema.ts';

export { serverConfigSchema, type ServerConfig } from './server-config-schema.ts';

/**
 * The toolgate.yaml schema. Keys are a public contract (docs/configuration.md).
 * Unknown keys are errors, not silently ignored: a typo must not disable a rule.
 */
/** A JSON Schema inside a condition: an object here; the app compiles it (a bad schema is a config error there). */
const conditionSchema = z.record(z.string(), z.unknown(), {
  error: 'must be a JSON Schema (an object), e.g. {properties: {path: {pattern: "^/srv/"}}}',
});

/**
 * A tool rule's conditional rule (docs/policy.md, "Conditions"). The shape is checked here; the expression and the
 * schemas are compiled with the policy (src/gate/compile-condition.ts), whose errors name the same key path.
 */
const conditionalRule = z
  .strictObject({
    when: z.union(
      [
        z.string().trim().min(1, 'a condition must not be empty, e.g. "args.qty * args.price > 10000"'),
        z
          .strictObject({
            args: conditionSchema.optional(),
            tenant: conditionSchema.optional(),
            user: conditionSchema.optional(),
            context: conditionSchema.optional(),
          })
          .refine((w) => Object.values(w).some((v) => v !== undefined), {
            message: 'name at least one of args, tenant, user, context, each with a JSON Schema it must match',
          }),
      ],
      { error: 'a CEL expression (a string) or JSON Schemas by part ({args: {…}, tenant, user, context})' },
    ),
    approval: z.enum(['required', 'auto', 'never']).optional(),
    deny: z
      .string()
      .min(1, 'deny is the reason the call is refused, e.g. "only /srv/shared/ may be touched"')
      .optional(),
    reason: z.string().min(1).optional(),
  })
  .refine((c) => c.approval !== undefined || c.deny !== undefined, {
    message: 'a condition sets "approval" (required, auto or never), "deny" (a reason), or both',
  });

const toolRule = z.strictObject({
  effect: z.enum(['read', 'write']).optional(),
  approval: z.enum(['required', 'auto', 'never']).optional(),
  conditions: z.array(conditionalRule).optional(),
  inject: z
    .record(z.string().min(1), z.string().min(1, 'an inject template must not be empty, e.g. "{{user.id}}"'))
    .optional(),
  timeoutMs: z.number().int().positive().optional(),
  returnDirect: z.boolean().optional(),
  untrusted: z.boolean().optional(),
  unknownOutcome: z.enum(['ask', 'tell_model']).optional(),
});

const toolPattern = z
  .string()
  .regex(/^[A-Za-z0-9_.*/-]+$/, 'a tool pattern is "server/tool", a bare tool name, or a glob like "power-exchange/*"');

/** A role name, as tokens carry them and tenant rules name them. */
const ROLE_PATTERN = /^[\w.:/@-]{1,128}$/;
const ROLE_PROBLEM = 'a role is 1 to 128 letters, digits or "_ . : / @ -", e.g. trader';
const roleName = z.string().regex(ROLE_PATTERN, ROLE_PROBLEM);

const apiKeyEntry = z.union([
  z.string().min(8, 'an API key must be at least 8 characters'),
  z.strictObject({
    key: z.string().min(8, 'an API key must be at least 8 characters'),
    userId: z.string().min(1).optional(),
    allowUserIdHeader: z.boolean().optional(),
    /** The roles the key's caller holds (tenants.<id>.roles, tenants.<id>.approvers). */
    roles: z.array(z.string().regex(ROLE_PATTERN, ROLE_PROBLEM)).optional(),
  }),
]);

export { MODEL_PATTERN };

/** An allowed-model pattern: "provider:model", `*` matching any characters ("openai:gpt-4o*", "openai:*"). */
const modelPattern = z
  .string()
  .regex(MODEL_PATTERN, 'a model pattern is "provider:model", optionally with * (e.g. openai:gpt-4o-mini, openai:*)')
  .refine((p) => !(p.startsWith('scripted:') && p.includes('*')), {
    message: 'scripted models are files on the server: name each one exactly (scripted:./demo.json), without *',
  });

/** The runtime guard's limits (docs/strategies.md); the same shape for the defaults and per tenant. */
const guardSchema = z.strictObject({
  maxToolCalls: z.number().int().min(1).max(100_000).optional(),
  maxTokens: z.number().int().min(1).optional(),
  maxWallMs: z.number().int().min(1).optional(),
  maxCostUsd: z.number().positive().optional(),
  maxConsecutiveFailures: z.number().int().min(1).max(1000).optional(),
  maxToolLatencyMs: z.number().int().min(1).optional(),
  maxToolLatencyP95Ms: z.number().int().min(1).optional(),
  maxConflicts: z.number().int().min(0).max(1000).optional(),
  maxRepeats: z.number().int().min(0).max(1000).optional(),
  onBreach: z.enum(['fail', 'degrade']).optional(),
});

const tenantRule = z.strictObject({
  allow: z.array(toolPattern).optional(),
  deny: z.array(toolPattern).optional(),
  /** Per role held by the caller: tools added (`allow`) or refused (`deny`). */
  roles: z
    .record(roleName, z.strictObject({ allow: z.array(toolPattern).optional(), deny: z.array(toolPattern).optional() }))
    .optional(),
  /** Tool pattern → the roles that may decide its approvals. */
  approvers: z
    .record(toolPattern, z.array(roleName).min(1, 'name at least one role that may decide, e.g. [trader]'))
    .optional(),
  apiKeys: z.array(apiKeyEntry).optional(),
  models: z.array(modelPattern).optional(),
  guard: guardSchema.optional(),
  /** The tenant's default strategy (a request may still name another). */
  strategy: z.enum(['react', 'plan', 'reflect', 'auto']).optional(),
  /** The tenant's router settings (over `router`). */
  router: z.strictObject({ live: z.boolean().optional() }).optional(),
  /** The tenant's todo settings (over `todo`). */
  todo: z
    .strictObject({
      enabled: z.boolean().optional(),
      remindAfter: z.number().int().min(0).max(100).optional(),
    })
    .optional(),
});

/**
 * The settings a rollout may change (config `rollout`, keyed by the setting's path): booleans default to `value:
 * true`; the others need a value.
 */
export const ROLLOUT_SETTINGS = [
  'router.live',
  'strategy',
  'todo.enabled',
  'guard.maxToolCalls',
  'guard.maxTokens',
  'guard.maxWallMs',
  'guard.maxCostUsd',
  'guard.maxConsecutiveFailures',
  'guard.maxToolLatencyMs',
  'guard.maxToolLatencyP95Ms',
  'guard.maxConflicts',
  'guard.maxRepeats',
  'guard.onBreach',
] as const;

/** A window of the live statistics, in minutes: from one minute to a week. */
const windowMinutes = z
  .number()
  .int()
  .min(1)
  .max(7 * 24 * 60);

/** One rollout: a setting for a share of runs (of some tenants), rolled back when the treated share fails too often. */
const rolloutSchema = z.strictObject({
  /** Only runs of these tenants take part (default: every tenant). */
  tenants: z.array(z.string().min(1).max(64)).optional(),
  /** The share of taking-part threads (or runs without a thread) treated, 0–100. */
  percent: z.number().min(0).max(100),
  /** The value treated runs get (default true for router.live and todo.enabled). */
  value: z.union([z.boolean(), z.number(), z.string()]).optional(),
  /** Automatic rollback: the treated share's failure rate over the window above `maxFailureRate`. */
  rollback: z
    .strictObject({
      maxFailureRate: z.number().min(0).max(1),
      /** The window the rate is measured over (default, and at most, the stats window). */
      windowMinutes: windowMinutes.optional(),
      /** Treated runs that must have ended in the window before the rate counts (default 20). */
      minRuns: z.number().int().min(1).max(1_000_000).optional(),
    })
    .optional(),
});

/** `calls` per `perSeconds`, per tenant (gateway.rateLimits). */
const rateLimit = z.strictObject({
  calls: z.number().int().min(1, 'calls must be at least 1'),
  perSeconds: z.number().positive('perSeconds must be more than 0'),
});

/** A virtual server's path: `/mcp/<name>`, or `/mcp` itself (which then narrows the plain endpoint). */
const endpointPath = z.string().refine((path) => path === '/mcp' || GATEWAY_ENDPOINT_PATH.test(path), {
  error: (issue) =>
    `"${String(issue.input)}" is not an endpoint path: write "/mcp/" and one name of lower-case letters, digits, ` +
    `"-" or "_" (at most 64), with no trailing slash, e.g. "/mcp/trading" (or "/mcp" to narrow the plain endpoint)`,
});

/** One virtual server of `gateway.endpoints` (docs/gateway.md, "Virtual servers"). */
const endpointSchema = z.strictObject({
  /** The tools offered there, as tool patterns; the tenant's own rules still apply. */
  tools: z.array(toolPattern).min(1, 'an endpoint offers at least one tool pattern, e.g. ["px/*"]').max(1000),
  /** Servers whose resources and prompts are offered there (default: the servers of its tools). */
  servers: z.array(z.string().min(1).max(200)).max(1000).optional(),
  /** Tenants that may connect (default: every caller); others get 403. */
  tenants: z.array(z.string().min(1).max(200)).max(10_000).optional(),
  /** Tools refused there, whatever the tenant may do elsewhere (a deny anywhere wins). */
  deny: z.array(toolPattern).max(1000).optional(),
  /** Tools whose every call waits for a person there. */
  approve: z.array(toolPattern).max(1000).optional(),
  /** Every write of its sessions is a dry run. */
  dryRun: z.boolean().optional(),
  /** Shown to clients in initialize (serverInfo.description). */
  description: z.string().min(1).max(2000).optional(),
  /** Shown to clients in initialize (instructions), instead of the gateway's own. */
  instructions: z.string().min(1).max(10_000).optional(),
});

/** gateway.sampling: what becomes of an upstream server's request for the client's model. */
const samplingDecision = z.enum(['allow', 'approve', 'deny'], {
  error: "must be allow, approve or deny (what becomes of a server's sampling request)",
});

/** Gateway mode (`toolgate gateway`, docs/gateway.md). */
const gatewaySchema = z.strictObject({
  /** A held call with no decision after this long is refused. */
  approvalTimeoutMs: z.number().int().min(1000).max(86_400_000).optional(),
  /** An HTTP session with no request for this long ends. */
  sessionIdleMs: z.number().int().min(1000).optional(),
  /** A session's own upstream connections (its client declared sampling, elicitation, roots) close unused this long. */
  sessionUpstreamIdleMs: z.number().int().min(1000).optional(),
  /** Sessions one gateway process keeps open at most; a new one beyond is refused until one ends. */
  maxSessions: z.number().int().min(1).max(1_000_000).optional(),
  /**
   * Open sessions one tenant may hold, across every instance sharing the store (default: maxSessions divided among the
   * tenants with keys, at least a quarter each).
   */
  maxSessionsPerTenant: z.number().int().min(1).max(1_000_000).optional(),
  /**
   * Open sessions one API key may hold (default: half its tenant's share when the tenant has several keys, else all of
   * it).
   */
  maxSessionsPerKey: z.number().int().min(1).max(1_000_000).optional(),
  /** A tool result larger than this (bytes of JSON) is cut before it is recorded and sent. */
  maxResultBytes: z.number().int().min(1024).optional(),
  /** Ask the client's user through MCP elicitation when the client supports it (default true). */
  elicitation: z.boolean().optional(),
  /**
   * Forward upstream servers' log messages (shared connections) to the clients of sessions that set a log level and
   * may use that server (default false: they go to the gateway's own log only).
   */
  forwardLogs: z.boolean().optional(),
  /**
   * What becomes of an upstream server's sampling request (MCP sampling/createMessage) to the session's client:
   * allow, approve (the client's user is asked first; default) or deny; or per server name, with "*" for the others.
   */
  sampling: z.union([samplingDecision, z.record(z.string().min(1), samplingDecision)]).optional(),
  /**
   * The client roots upstream servers are shown: URIs, `*` for any characters but `/`, `**` for any; a URI without
   * `*` covers everything under it (default: every root of the client).
   */
  roots: z.array(z.string().min(1).max(2048)).max(100).optional(),
  /** Every session's writes are dry runs (true), or those of the listed tenants. */
  dryRun: z.union([z.boolean(), z.array(z.string().min(1))]).optional(),
  /** Tool pinning: a changed upstream tool is hidden until accepted (default true). */
  pinning: z.boolean().optional(),
  /** Signs the state of approvals asked through the client; several instances serving one client need the same one. */
  stateSecret: z
    .string()
    .min(32, 'the state secret must be at least 32 characters (e.g. `openssl rand -base64 32`, given as env:NAME)')
    .optional(),
  /** Who a stdio session acts for (an HTTP session's identity comes from its API key). */
  identity: z
    .strictObject({
      tenant: z.string().min(1).optional(),
      user: z.string().min(1).optional(),
      /** The virtual server a stdio session serves (a key of `endpoints`). */
      endpoint: endpointPath.optional(),
    })
    .optional(),
  /** Virtual servers: tool bundles on paths of their own (docs/gateway.md, "Virtual servers"). */
  endpoints: z.record(endpointPath, endpointSchema).optional(),
  rateLimits: z
    .strictObject({
      /** Every call of a tenant counts. */
      tenant: rateLimit.optional(),
      /** Per tool pattern (as in `tools:`), per tenant. */
      tools: z.record(toolPattern, rateLimit).optional(),
    })
    .optional(),
});

/** `gateway.identity.endpoint` names one of `gateway.endpoints`. */
function checkIdentityEndpoint(gateway: z.infer<typeof gatewaySchema>, ctx: z.RefinementCtx): void {
  const endpoint = gateway.identity?.endpoint;
  if (endpoint !== undefined && gateway.endpoints?.[endpoint] === undefined) {
    const known = Object.keys(gateway.endpoints ?? {});
    ctx.addIssue({
      code: 'custom',
      path: ['identity', 'endpoint'],
      message:
        `names endpoint "${endpoint}", which is not a key of gateway.endpoints ` +
        `(known: ${known.length === 0 ? 'none' : known.join(', ')})`,
    });
  }
}

/** The chat protocols (POST /v1/chat/completions, docs/openai.md). */
const chatSchema = z.strictObject({
  /** The answer that says a call waits for a person: {tool}, {runId} and {reason} are filled in. */
  approvalMessage: z
    .string()
    .refine((text) => text.includes('{runId}'), {
      message:
        'must contain {runId}: the next request of the conversation finds the waiting run by it ' +
        '(e.g. "{tool} waits for approval in run {runId}.")',
    })
    .optional(),
  /** How long a request with `toolgate.wait` stays open for a decision. */
  approvalTimeoutMs: z.number().int().min(1000).max(86_400_000).optional(),
});

/** One OpenID Connect issuer whose bearer JWTs are accepted (docs/security.md, "OAuth 2.1 / OpenID Connect"). */
const oidcIssuerSchema = z.strictObject({
  /** The issuer URL exactly as tokens carry it in `iss`; its discovery document is read from it. */
  issuer: z.url({ protocol: /^https?$/, error: 'must be the issuer URL, e.g. https://login.example.com/realms/acme' }),
  /** Accepted `aud` values (default: auth.resource, the URL this server is known by). */
  audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  /** Claim holding the tenant id (dots reach into objects, e.g. org.id); default `tenant`. */
  tenantClaim: z.string().min(1).optional(),
  /** Every token of this issuer acts for this tenant (instead of tenantClaim). */
  tenant: z.string().min(1).optional(),
  /** Claim holding the user id; default `sub`. */
  userClaim: z.string().min(1).optional(),
  /** Claim holding the roles (a list, or a space-separated string); default `roles`. */
  rolesClaim: z.string().min(1).optional(),
  /** Scopes every token must carry (default none). */
  requiredScopes: z.array(z.string().min(1)).optional(),
  /** Seconds of clock difference tolerated on exp/nbf/iat (default 30). */
  clockToleranceSeconds: z.number().int().min(0).max(600).optional(),
  /** The issuer's key set URL, instead of the one its discovery document names. */
  jwksUri: z.url({ protocol: /^https?$/ }).optional(),
  /** Signature algorithms accepted (default: the asymmetric ones: RS*, PS*, ES*, EdDSA). */
  algorithms: z.array(z.string().regex(/^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$/)).optional(),
  /** A key not in the cached set is fetched again at most this often (default 30000). */
  jwksCooldownMs: z.number().int().min(0).max(3_600_000).optional(),
  /** The console signs in with this issuer (authorization code + PKCE) as this client. */
  console: z
    .strictObject({
      clientId: z.string().min(1),
      /** For a confidential client (give it as env:NAME); a public client uses PKCE alone. */
      clientSecret: z.string().min(1).optional(),
      /** Default: openid profile. */
      scopes: z.array(z.string().min(1)).optional(),
    })
    .optional(),
});

/** How callers prove who they are besides API keys (docs/security.md). */
const authSchema = z.strictObject({
  /**
   * The URL this server is known by (RFC 9728 `resource`), e.g. https://toolgate.example.com: the default audience of
   * tokens and the base of the metadata and links. Absent: taken from each request's Host.
   */
  resource: z.url({ protocol: /^https?$/, error: 'must be the URL clients reach this server at' }).optional(),
  oidc: z.array(oidcIssuerSchema).optional(),
});

/** Where a notification about a waiting call goes (docs/approvals.md). */
const notifyTargetSchema = z.strictObject({
  /** Names the target in the run's events. */
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a target name may use letters, digits, "_", "-", "."'),
  url: z.url({ protocol: /^https?$/, error: 'must be the webhook URL, e.g. https://hooks.example.com/toolgate' }),
  /** Signs every delivery (Standard Webhooks); give it as env:NAME. `whsec_…` values are base64 after the prefix. */
  secret: z.string().min(24, 'the webhook secret must be at least 24 characters (e.g. `openssl rand -base64 32`)'),
  /** `json` (default): toolgate's payload; `slack`: a Block Kit message with buttons (an incoming webhook). */
  format: z.enum(['json', 'slack']).optional(),
  /** Only calls of these tenants (default every tenant). */
  tenants: z.array(z.string().min(1)).optional(),
  /** Only calls of these tool patterns (default every tool). */
  tools: z.array(toolPattern).optional(),
  headers: stringMapSchema.optional(),
  /** One attempt's time limit (default 10000). */
  timeoutMs: z.number().int().min(100).max(120_000).optional(),
  /** Attempts before a delivery is recorded as failed (default 5), with exponential backoff between them. */
  maxAttempts: z.number().int().min(1).max(20).optional(),
});

const onTimeoutSchema = z.enum(['reject', 'escalate', 'notify-again']);

/** How long a call may wait for a person before its timeout acts: a second to 30 days. */
const approvalWaitMs = z
  .number()
  .int()
  .min(1000)
  .max(30 * 86_400_000);

/** Approvals outside the console: notifications, decision links, timeouts (docs/approvals.md). */
const approvalsSchema = z.strictObject({
  notify: z.array(notifyTargetSchema).optional(),
  /** A call waiting longer than this gets `onTimeout` (default: it waits for ever). */
  timeoutMs: approvalWaitMs.optional(),
  onTimeout: onTimeoutSchema.optional(),
  /** The second set of approvers, reached when a timeout escalates. */
  escalation: z
    .strictObject({
      notify: z.array(notifyTargetSchema).optional(),
      /** Roles that may decide an escalated call, besides the tenant's approvers. */
      approvers: z.array(roleName).optional(),
      /** An escalated call waiting longer than this gets `onTimeout` (default reject). */
      timeoutMs: approvalWaitMs.optional(),
      onTimeout: z.enum(['reject', 'notify-again']).optional(),
    })
    .optional(),
  /** The base URL of decision links (default auth.resource, else the address the server listens on). */
  publicUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** Signs decision links (at least 32 characters, give it as env:NAME; default server.sessionSecret). */
  linkSecret: z
    .string()
    .min(32, 'the link secret must be at least 32 characters (e.g. `openssl rand -base64 32`, given as env:NAME)')
    .optional(),
  /** How long a decision link works (default 86400000, a day). */
  linkTtlMs: z
    .number()
    .int()
    .min(60_000)
    .max(30 * 86_400_000)
    .optional(),
});

/** US dollars per million tokens, for guard.maxCostUsd. */
const priceSchema = z.strictObject({
  inputPerMTok: z.number().min(0),
  outputPerMTok: z.number().min(0),
});

/**
 * How model output is read (docs/parsing.md). A format's own fields are
 * checked when toolgate starts, by the parser's checker (the config layer does
 * not load the parser): here only that it is an object.
 */
const parsingSchema = z.strictObject({
  /** Call formats read besides the built-in lexicon, in the shape of src/parsing/formats/call-format.ts. */
  formats: z
    .array(
      z.record(z.string(), z.unknown(), {
        error: 'a call format is an object: {id, call: {begin, end?}, name: {slot, …}, arguments: {grammar, …}, …}',
      }),
      {
        error:
          'must be a list of call formats, e.g. formats: [{id: my-format, call: {begin: "<call>", end: ' +
          '"</call>"}, name: {slot: field, nameKey: name, argumentsKey: arguments}, arguments: {grammar: json}}]',
      },
    )
    .optional(),
  /** Model pattern → where its chat template is: a .jinja file, a tokenizer_config.json, a .gguf file, or `server`. */
  chatTemplates: z
    .record(
      modelPattern,
      z.string().min(1, 'a chat template source is a file (.jinja, tokenizer_config.json, .gguf) or "server"'),
      {
        error:
          'must map model patterns to template sources, e.g. chatTemplates: ' +
          '{"vllm:*": ./templates/qwen3.jinja, "llamacpp:*": server}',
      },
    )
    .optional(),
});

export const configSchema = z
  .strictObject({
    model: z
      .string()
      .regex(MODEL_PATTERN, 'model must be "provider:model", e.g. openai:gpt-4o-mini or scripted:./demo.json')
      .optional(),
    models: z.array(modelPattern).optional(),
    textToolCalls: z.enum(['never', 'auto', 'always']).optional(),
    providers: providersSchema.optional(),
    servers: z
      .record(
        z
          .string()
          .regex(/^[a-zA-Z0-9_.-]{1,48}$/, 'server names may use letters, digits, "_", "-" and "." (at most 48)'),
        serverConfigSchema,
      )
      .optional(),
    maxSteps: z.number().int().min(1).max(1000).optional(),
    strategy: z.enum(['react', 'plan', 'reflect', 'auto']).optional(),
    guard: guardSchema.optional(),
    prices: z.record(modelPattern, priceSchema).optional(),
    plan: z
      .strictObject({
        approval: z.enum(['plan', 'step']).optional(),
        maxReplans: z.number().int().min(0).max(20).optional(),
      })
      .optional(),
    todo: z
      .strictObject({
        enabled: z.boolean().optional(),
        remindAfter: z.number().int().min(0).max(100).optional(),
      })
      .optional(),
    threads: z
      .strictObject({
        maxTokens: z.number().int().min(100).optional(),
      })
      .optional(),
    router: z
      .strictObject({
        /** A `toolgate eval --out` report: the auto strategy prefers, per intent, the strategy that passed best. */
        evalResults: z.string().min(1).optional(),
        /** The live outcomes join the eval results: a Beta-Bernoulli bandit per intent (docs/strategies.md). */
        live: z.boolean().optional(),
      })
      .optional(),
    /** Live outcome statistics (GET /v1/stats, docs/observability.md). */
    stats: z
      .strictObject({
        /** The sliding window, in minutes (default 60). */
        windowMinutes: windowMinutes.optional(),
        /** How often runs other processes changed are read from the store, in ms (default 5000; 0: never). */
        refreshMs: z.number().int().min(0).max(3_600_000).optional(),
      })
      .optional(),
    /** Settings for a share of runs, per tenant, with automatic rollback (docs/strategies.md, "Rollouts"). */
    rollout: z
      .partialRecord(z.enum(ROLLOUT_SETTINGS), rolloutSchema, {
        error: `rollout keys are settings: ${ROLLOUT_SETTINGS.join(', ')}`,
      })
      .optional(),
    /** How long ended runs are kept (docs/observability.md, "Retention"). */
    retention: z
      .strictObject({
        completedAfterDays: z.number().positive().max(36_500).optional(),
        failedAfterDays: z.number().positive().max(36_500).optional(),
        cancelledAfterDays: z.number().positive().max(36_500).optional(),
        /** Runs in which a person was asked to approve are kept (audit). Default false. */
        keepApprovals: z.boolean().optional(),
        /** `serve` applies the policy every this many minutes (default 60; 0: only `toolgate runs prune`). */
        intervalMinutes: z
          .number()
          .int()
          .min(0)
          .max(7 * 24 * 60)
          .optional(),
        /** Where `serve` writes the archives of what it prunes (a directory; default: no archive). */
        archiveDir: z.string().min(1).optional(),
      })
      .optional(),
    systemPrompt: z.string().optional(),
    toolTimeoutMs: z.number().int().positive().optional(),
    /**
     * A tool result in a run larger than this (bytes of JSON) is cut before it is recorded; gateway.maxResultBytes
     * defaults to it.
     */
    maxResultBytes: z
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024)
      .optional(),
    stream: z.boolean().optional(),
    toolMode: z.enum(['native', 'prompted', 'auto']).optional(),
    constrain: z.boolean().optional(),
    parsing: parsingSchema.optional(),
    parseRetries: z.number().int().min(0).max(10).optional(),
    tools: z.record(toolPattern, toolRule).optional(),
    tenants: z
      .record(
        z.string().regex(/^[A-Za-z0-9_.*-]{1,64}$/, 'tenant ids may use letters, digits, "_", "-", "."'),
        tenantRule,
      )
      .optional(),
    redact: z.array(z.string().min(1)).optional(),
    policy: z
      .strictObject({
        /**
         * A tool pattern (tools, tenants, gateway.rateLimits.tools) that matches no tool is an error at start, not a
         * warning.
         */
        strict: z.boolean().optional(),
      })
      .optional(),
    gateway: gatewaySchema.superRefine(checkIdentityEndpoint).optional(),
    chat: chatSchema.optional(),
    auth: authSchema.optional(),
    approvals: approvalsSchema.optional(),
    server: z
      .strictObject({
        port: z.number().int().min(0).max(65535).optional(),
        host: z.string().min(1).optional(),
        store: z
          .string()
          .regex(
            /^(memory:?|sqlite:.+|postgres(ql)?:\/\/.+)$/i,
            'store must be memory:, sqlite:<file> or postgres://user:password@host:5432/database',
          )
          .optional(),
        sqliteSynchronous: z.enum(['FULL', 'NORMAL']).optional(),
        sqliteBusyTimeoutMs: z.number().int().min(0).max(600_000).optional(),
        poolSize: z.number().int().min(1).max(1000).optional(),
        concurrency: z.number().int().min(1).max(1000).optional(),
        queueLimit: z.number().int().min(0).max(1_000_000).optional(),
        queueLimitPerTenant: z.number().int().min(0).max(1_000_000).optional(),
        leaseMs: z.number().int().min(300).max(3_600_000).optional(),
        heartbeatMs: z.number().int().min(100).optional(),
        sseBufferLimitBytes: z.number().int().min(1024).optional(),
        /** A request body larger than this is answered 413. */
        maxBodyBytes: z
          .number()
          .int()
          .min(1024)
          .max(1024 * 1024 * 1024)
          .optional(),
        sseIdleTimeoutMs: z.number().int().min(100).optional(),
        sseHistoryTimeoutMs: z.number().int().min(100).optional(),
        ssePollMs: z.number().int().min(0).max(60_000).optional(),
        shutdownGraceMs: z.number().int().min(0).optional(),
        toolStartTimeoutMs: z.number().int().min(100).max(600_000).optional(),
        toolRetryMaxDelayMs: z.number().int().min(100).max(3_600_000).optional(),
        metricsPort: z.number().int().min(0).max(65535).optional(),
        metricsHost: z.string().min(1).optional(),
        cors: z
          .strictObject({
            origins: z.array(
              z.string().superRefine((value, ctx) => {
                const problem = corsOriginProblem(value);
                if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
              }),
              {
                error: (issue) =>
                  `${issue.input === undefined ? 'is required:' : 'must be'} ` +
                  `a list of origins, e.g. origins: ["https://app.example.com"]`,
              },
            ),
          })
          .optional(),
        sessionSecret: z
          .string()
          .min(
            32,
            'the session secret must be at least 32 characters (e.g. ' +
              'the output of `openssl rand -base64 32`, given as env:NAME)',
          )
          .optional(),
        sessionTtlSeconds: z
          .number()
          .int('must be a whole number of seconds')
          .min(60, 'must be at least 60 (seconds)')
          .max(2_592_000, 'must be at most 2592000 (30 days)')
          .optional(),
        /**
         * Proxies in front whose X-Forwarded-For names the client (docs/security.md); absent: the socket's peer is the
         * client.
         */
        trustedProxies: z
          .array(
            z.string().superRefine((value, ctx) => {
              const problem = ipRangeProblem(value);
              if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
            }),
            { error: 'must be a list of addresses or CIDR ranges, e.g. trustedProxies: ["10.0.0.0/8"]' },
          )
          .optional(),
        /** Failed authentications slow the guesser down (docs/security.md). */
        authBackoff: z
          .strictObject({
            enabled: z.boolean().optional(),
            freeFailures: z.number().int().min(0).max(1000).optional(),
            baseDelayMs: z.number().int().min(1).max(3_600_000).optional(),
            maxDelayMs: z.number().int().min(1).max(86_400_000).optional(),
            forgetAfterMs: z.number().int().min(1).max(604_800_000).optional(),
          })
          .optional(),
      })
      .optional(),
  })
  .superRefine((config, ctx) => {
    // Every model id and pattern must name a provider that exists, so a typo fails at load, not at a tenant's first
    // run.
    const providers = config.providers;
    const check = (model: string, path: (string | number)[]): void => {
      const problem = unknownProviderProblem(model, providers);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', path, message: problem });
    };
    if (config.model !== undefined) check(config.model, ['model']);
    config.models?.forEach((m, i) => check(m, ['models', i]));
    for (const [tenant, rule] of Object.entries(config.tenants ?? {}))
      rule.models?.forEach((m, i) => check(m, ['tenants', tenant, 'models', i]));
    for (const pattern of Object.keys(config.prices ?? {})) check(pattern, ['prices', pattern]);
    for (const pattern of Object.keys(config.parsing?.chatTemplates ?? {}))
      check(pattern, ['parsing', 'chatTemplates', pattern]);
  });

export type ToolgateConfig = z.output<typeof configSchema>;
/** The config as written, before `providers:` entries get their type resolved. */
export type ToolgateConfigInput = z.input<typeof configSchema>;
