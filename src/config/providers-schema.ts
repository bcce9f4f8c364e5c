import { z } from 'zod';
import { didYouMean } from '../core/index.ts';
import {
  isProviderType,
  ollamaHostProblem,
  PROVIDER_NAME,
  PROVIDER_TYPES,
  providerTypeOf,
  SCRIPTED_PROVIDER,
} from './providers.ts';
import { baseUrlProblem } from './base-url-problem.ts';
import { stringMapSchema } from './server-config-schema.ts';
import { unknownKeyMessage } from './unknown-key-message.ts';

/*
 * `providers:` in toolgate.yaml — the model APIs toolgate talks to, by the
 * name a model id starts with (`anthropic:claude-…`, `vllm:qwen…`). The
 * built-in names are their own type; any other name is an endpoint of one of
 * those types (`vllm: {type: openai, baseUrl: …}`).
 */
const positiveInt = z.number().int().positive();

/** What every HTTP provider accepts: credentials, headers, the retry policy and the read limits. */
const common = {
  apiKey: z.string().optional(),
  headers: stringMapSchema.optional(),
  timeoutMs: positiveInt.optional(),
  maxRetries: z.number().int().min(0).max(20).optional(),
  maxResponseBytes: z.number().int().min(1024).optional(),
  maxStreamBytes: z.number().int().min(1024).optional(),
  maxEventBytes: z.number().int().min(1024).optional(),
  maxToolCalls: z.number().int().min(1).max(10_000).optional(),
  /** Fields merged last into every request body (e.g. vLLM's chat_template_kwargs, Ollama's top-level extras). */
  extraBody: z.record(z.string(), z.json()).optional(),
};

const httpUrl = (example: string) =>
  z.string().superRefine((value, ctx) => {
    const problem = baseUrlProblem(value, example);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });

const openaiEntry = z.strictObject({
  type: z.literal('openai').optional(),
  baseUrl: httpUrl('http://localhost:11434/v1').optional(),
  ...common,
});

const anthropicEntry = z.strictObject({
  type: z.literal('anthropic').optional(),
  baseUrl: httpUrl('https://api.anthropic.com').optional(),
  /** The `anthropic-version` header. */
  version: z.string().min(1).optional(),
  /** Anthropic requires a cap on every answer: used when a request sets none. */
  maxTokens: z.number().int().min(1).max(1_000_000).optional(),
  thinking: z
    .strictObject({
      budgetTokens: z.number().int().min(1024, 'Anthropic needs a thinking budget of at least 1024 tokens'),
    })
    .optional(),
  ...common,
});

const ollamaEntry = z.strictObject({
  type: z.literal('ollama').optional(),
  /** As OLLAMA_HOST: `http://127.0.0.1:11434`, `0.0.0.0:11434`, `gpu-box` (scheme http and port 11434 by default). */
  host: z
    .string()
    .superRefine((value, ctx) => {
      const problem = ollamaHostProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  think: z.union([z.boolean(), z.enum(['low', 'medium', 'high'])]).optional(),
  keepAlive: z.union([z.string().min(1), z.number()]).optional(),
  /** Ollama model options (num_ctx, top_p, seed…), sent as `options`. */
  options: z.record(z.string(), z.json()).optional(),
  ...common,
});

const ENTRY_SCHEMAS = { openai: openaiEntry, anthropic: anthropicEntry, ollama: ollamaEntry } as const;

export type OpenAIProviderEntry = z.infer<typeof openaiEntry>;
export type AnthropicProviderEntry = z.infer<typeof anthropicEntry>;
export type OllamaProviderEntry = z.infer<typeof ollamaEntry>;
export type ProviderEntry = OpenAIProviderEntry | AnthropicProviderEntry | OllamaProviderEntry;

/** `providers:` as written: the built-in names need no `type`, other names do. */
export interface ProvidersConfig {
  openai?: OpenAIProviderEntry;
  anthropic?: AnthropicProviderEntry;
  ollama?: OllamaProviderEntry;
  [name: string]: ProviderEntry | undefined;
}

export type OpenAIProviderConfig = OpenAIProviderEntry & { type: 'openai' };
export type AnthropicProviderConfig = AnthropicProviderEntry & { type: 'anthropic' };
export type OllamaProviderConfig = OllamaProviderEntry & { type: 'ollama' };
/** One provider's settings, its type resolved. */
export type ProviderConfig = OpenAIProviderConfig | AnthropicProviderConfig | OllamaProviderConfig;

/**
 * The `providers:` map. Each entry is checked against its type's keys, so
 * `vllm: {type: openai, host: …}` is told that `host` is not an OpenAI key.
 */
export const providersSchema = z
  .record(z.string(), z.unknown())
  .superRefine((providers, ctx) => {
    for (const [name, entry] of Object.entries(providers)) {
      if (!PROVIDER_NAME.test(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message:
            'a provider name is lower-case letters, digits and "-", starting with a letter ' +
            '(at most 32), e.g. vllm: it is the part of a model id before the first colon',
        });
        continue;
      }
      if (name === SCRIPTED_PROVIDER) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'scripted is built in (scripted:./script.json) and takes no settings; remove this entry',
        });
        continue;
      }
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `must be a map of settings, e.g. ${name}: {type: openai, baseUrl: http://localhost:8000/v1}`,
        });
        continue;
      }
      const declared = 'type' in entry ? entry.type : undefined;
      if (isProviderType(name) && declared !== undefined && declared !== name) {
        ctx.addIssue({
          code: 'custom',
          path: [name, 'type'],
          message:
            `providers.${name} is always type ${name}; give a ${String(declared)} endpoint ` +
            `a name of its own, e.g. my-${String(declared)}: {type: ${String(declared)}, …}`,
        });
        continue;
      }
      const type = providerTypeOf(name, entry);
      if (type === undefined) {
        const got = declared === undefined ? 'none' : JSON.stringify(declared);
        ctx.addIssue({
          code: 'custom',
          path: [name, 'type'],
          message:
            `"${name}" is not a built-in provider, so it needs a type: openai, anthropic or ollama ` +
            (`(got ${got}${typeof declared === 'string' ? didYouMean(declared, PROVIDER_TYPES) : ''}), ` +
              `e.g. ${name}: {type: openai, baseUrl: http://localhost:8000/v1}`),
        });
        continue;
      }
      const schema = ENTRY_SCHEMAS[type];
      const result = schema.safeParse(entry);
      if (result.success) continue;
      for (const issue of result.error.issues) {
        if (issue.code === 'unrecognized_keys') {
          const known = Object.keys(schema.shape);
          const which = isProviderType(name) ? '' : ` (for a provider of type ${type})`;
          for (const key of issue.keys)
            ctx.addIssue({
              code: 'custom',
              path: [name, ...issue.path, key],
              message: `${unknownKeyMessage(key, known)}${which}`,
            });
        } else {
          ctx.addIssue({ code: 'custom', path: [name, ...issue.path], message: issue.message });
        }
      }
    }
  })
  // Checked above entry by entry: each entry is typed by the same check.
  .transform((providers) => {
    const out: ProvidersConfig = {};
    for (const [name, entry] of Object.entries(providers)) if (isValidEntry(name, entry)) out[name] = entry;
    return out;
  });

/** Whether `entry` passes its type's schema: what the refinement above checked, so that the entry is typed. */
function isValidEntry(name: string, entry: unknown): entry is ProviderEntry {
  const type = providerTypeOf(name, entry);
  return type !== undefined && ENTRY_SCHEMAS[type].safeParse(entry).success;
}
