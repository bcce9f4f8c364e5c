import { z } from 'zod';
import { didYouMean } from '../core/index.ts';
import { baseUrlProblem } from './base-url-problem.ts';
import { stringMapSchema } from './server-config-schema.ts';
import { unknownKeyMessage } from './unknown-key-message.ts';

/**
 * `providers:` in toolgate.yaml — the model APIs toolgate talks to, by the
 * name a model id starts with (`anthropic:claude-…`, `vllm:qwen…`). The
 * built-in names are their own type; any other name is an endpoint of one of
 * those types (`vllm: {type: openai, baseUrl: …}`).
 */
export const PROVIDER_TYPES = ['openai', 'anthropic', 'ollama'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];
/** Built in, with no settings: a JSON script file (`scripted:./demo.json`). */
export const SCRIPTED_PROVIDER = 'scripted';
/** The provider part of a model id: a name usable as a config key and before the first colon. */
export const PROVIDER_NAME = /^[a-z][a-z0-9-]{0,31}$/;

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
  thinking: z.strictObject({ budgetTokens: z.number().int().min(1024, 'Anthropic needs a thinking budget of at least 1024 tokens') }).optional(),
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

/** An entry with its type resolved (by its name for a built-in). Undefined for a name that has none. */
export function typedProvider(name: string, entry: ProviderEntry | undefined): ProviderConfig | undefined {
  const type = typeOf(name, entry ?? {});
  return type === undefined ? undefined : ({ ...entry, type } as ProviderConfig);
}

export function isProviderType(name: string): name is ProviderType {
  return (PROVIDER_TYPES as readonly string[]).includes(name);
}

/** Why an Ollama host cannot be used, or undefined. Accepts what OLLAMA_HOST accepts: a bare host, host:port, or a URL. */
export function ollamaHostProblem(value: string): string | undefined {
  const text = value.trim();
  const example = 'e.g. http://127.0.0.1:11434 or gpu-box:11434';
  if (text === '' || /\s/.test(text)) return `must be a host or URL without spaces, ${example}`;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1];
  if (scheme !== undefined && !/^https?$/i.test(scheme)) return `must use http:// or https:// (got ${scheme}://), ${example}`;
  try {
    new URL(scheme === undefined ? `http://${text}` : text);
  } catch {
    return `is not a valid host or URL, ${example}`;
  }
  return undefined;
}

/** The type a provider name has: its own for a built-in name, else the entry's `type`. */
function typeOf(name: string, entry: unknown): ProviderType | undefined {
  if (isProviderType(name)) return name;
  const type = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)['type'] : undefined;
  return typeof type === 'string' && isProviderType(type) ? type : undefined;
}

/**
 * The `providers:` map. Each entry is checked against its type's keys, so
 * `vllm: {type: openai, host: …}` is told that `host` is not an OpenAI key.
 */
export const providersSchema = z
  .record(z.string(), z.unknown())
  .superRefine((providers, ctx) => {
    for (const [name, entry] of Object.entries(providers)) {
      if (!PROVIDER_NAME.test(name)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'a provider name is lower-case letters, digits and "-", starting with a letter (at most 32), e.g. vllm: it is the part of a model id before the first colon' });
        continue;
      }
      if (name === SCRIPTED_PROVIDER) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'scripted is built in (scripted:./script.json) and takes no settings; remove this entry' });
        continue;
      }
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        ctx.addIssue({ code: 'custom', path: [name], message: `must be a map of settings, e.g. ${name}: {type: openai, baseUrl: http://localhost:8000/v1}` });
        continue;
      }
      const declared = (entry as Record<string, unknown>)['type'];
      if (isProviderType(name) && declared !== undefined && declared !== name) {
        ctx.addIssue({ code: 'custom', path: [name, 'type'], message: `providers.${name} is always type ${name}; give a ${String(declared)} endpoint a name of its own, e.g. my-${String(declared)}: {type: ${String(declared)}, …}` });
        continue;
      }
      const type = typeOf(name, entry);
      if (type === undefined) {
        const got = declared === undefined ? 'none' : JSON.stringify(declared);
        ctx.addIssue({
          code: 'custom',
          path: [name, 'type'],
          message: `"${name}" is not a built-in provider, so it needs a type: openai, anthropic or ollama (got ${got}${typeof declared === 'string' ? didYouMean(declared, PROVIDER_TYPES) : ''}), e.g. ${name}: {type: openai, baseUrl: http://localhost:8000/v1}`,
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
          for (const key of issue.keys) ctx.addIssue({ code: 'custom', path: [name, ...issue.path, key], message: `${unknownKeyMessage(key, known)}${which}` });
        } else {
          ctx.addIssue({ code: 'custom', path: [name, ...issue.path], message: issue.message });
        }
      }
    }
  })
  // Checked above entry by entry; the type names what was checked.
  .transform((providers) => providers as ProvidersConfig);

/** Every provider a model id may name: the built-ins, scripted, and the configured endpoints. */
export function knownProviders(configured: Readonly<Record<string, unknown>> | undefined): string[] {
  return [...new Set([...PROVIDER_TYPES, SCRIPTED_PROVIDER, ...Object.keys(configured ?? {})])];
}

/** Why a model id or pattern names no known provider, or undefined. */
export function unknownProviderProblem(model: string, configured: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const colon = model.indexOf(':');
  if (colon <= 0) return undefined;
  const provider = model.slice(0, colon);
  const known = knownProviders(configured);
  if (known.includes(provider)) return undefined;
  return `unknown provider "${provider}" in "${model}"${didYouMean(provider, known)}; known providers: ${known.join(', ')} (declare another endpoint under providers:, e.g. ${provider}: {type: openai, baseUrl: http://localhost:8000/v1})`;
}
