import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { describeError, isJsonObject } from '../core/index.ts';

/** How long `server` waits for `GET /props`. */
export const DEFAULT_PROPS_TIMEOUT_MS = 5_000;
/** Largest template or tokenizer_config.json read from a file (real ones are under 100 kB). */
export const DEFAULT_MAX_TEMPLATE_FILE_BYTES = 4 * 1024 * 1024;

export interface LoadChatTemplateOptions {
  /** Relative paths are read from here. */
  cwd: string;
  /** The serving stack's base URL, for the `server` source (`/v1` at its end is dropped). */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Which named template of a list to take (default: `tool_use`, else `default`). */
  templateName?: string;
  timeoutMs?: number;
}

export type LoadedChatTemplate =
  { ok: true; template: string; origin: string; bosToken?: string; eosToken?: string } | { ok: false; reason: string };

type Failure = { ok: false; reason: string };
const fail = (reason: string): Failure => ({ ok: false, reason });

/** A special token in tokenizer_config.json: a string, or `{content: "…"}`. */
function tokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const content = isJsonObject(value) ? value['content'] : undefined;
  return typeof content === 'string' ? content : undefined;
}

function withTokens(base: { template: string; origin: string }, bos: unknown, eos: unknown): LoadedChatTemplate {
  const bosToken = tokenText(bos);
  const eosToken = tokenText(eos);
  return {
    ok: true,
    ...base,
    ...(bosToken === undefined ? {} : { bosToken }),
    ...(eosToken === undefined ? {} : { eosToken }),
  };
}

/** `chat_template` as a string, or a list of `{name, template}`: `templateName`, else `tool_use`, else `default`. */
function pickTemplate(
  value: unknown,
  where: string,
  templateName: string | undefined,
): { ok: true; template: string; name?: string } | Failure {
  if (typeof value === 'string')
    return value.trim() === '' ? fail(`${where}: chat_template is empty`) : { ok: true, template: value };
  if (!Array.isArray(value)) return fail(`${where} has no chat_template (a string or a list of {name, template})`);
  const named = value.flatMap((v: unknown) => {
    if (!isJsonObject(v)) return [];
    const { name, template } = v;
    return typeof name === 'string' && typeof template === 'string' ? [{ name, template }] : [];
  });
  const names = named.map((n) => n.name);
  const wanted = templateName === undefined ? ['tool_use', 'default'] : [templateName];
  for (const name of wanted) {
    const hit = named.find((n) => n.name === name);
    if (hit !== undefined) return { ok: true, template: hit.template, name };
  }
  return fail(
    `${where}: no chat template named ${wanted.map((w) => `"${w}"`).join(' or ')} ` +
      `(it has: ${names.join(', ') || 'none'})`,
  );
}

function fromTokenizerConfig(text: string, where: string, templateName: string | undefined): LoadedChatTemplate {
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    return fail(`${where} is not valid JSON: ${describeError(error)}`);
  }
  if (!isJsonObject(config)) return fail(`${where} is not a JSON object`);
  if (!('chat_template' in config))
    return fail(
      `${where} has no chat_template key (a Hugging Face tokenizer_config.json has one; give a .jinja file instead)`,
    );
  const picked = pickTemplate(config.chat_template, where, templateName);
  if (!picked.ok) return picked;
  return withTokens(
    { template: picked.template, origin: picked.name === undefined ? where : `${where} (${picked.name})` },
    config.bos_token,
    config.eos_token,
  );
}

async function fromGguf(path: string, source: string, templateName: string | undefined): Promise<LoadedChatTemplate> {
  let metadata: ReadonlyMap<string, unknown>;
  try {
    // Loaded here, not with the module: the GGUF reader (about 9 MB with its model-task tables) is for .gguf sources
    // alone, and the library's entry exports this module. It reads the header in 2 MB slices: the tensors of a
    // multi-GB file are never loaded.
    const { gguf } = await import('@huggingface/gguf');
    metadata = new Map(Object.entries((await gguf(path, { allowLocalFile: true })).metadata));
  } catch (error) {
    return fail(`${source} could not be read as GGUF: ${describeError(error)}`);
  }
  const key =
    templateName === undefined
      ? typeof metadata.get('tokenizer.chat_template.tool_use') === 'string'
        ? 'tokenizer.chat_template.tool_use'
        : 'tokenizer.chat_template'
      : `tokenizer.chat_template.${templateName}`;
  const template = metadata.get(key);
  if (typeof template !== 'string' || template.trim() === '')
    return fail(
      `${source} has no ${key} metadata (the GGUF file carries no chat ` +
        `template; give a .jinja file or the model's tokenizer_config.json)`,
    );
  const tokens = metadata.get('tokenizer.ggml.tokens');
  const tokenAt = (idKey: string): string | undefined => {
    const id = metadata.get(idKey);
    const value: unknown =
      Array.isArray(tokens) && (typeof id === 'number' || typeof id === 'bigint') ? tokens[Number(id)] : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  return withTokens(
    { template, origin: `${source} (${key})` },
    tokenAt('tokenizer.ggml.bos_token_id'),
    tokenAt('tokenizer.ggml.eos_token_id'),
  );
}

async function fromServer(options: LoadChatTemplateOptions): Promise<LoadedChatTemplate> {
  if (options.baseUrl === undefined) return fail('the chat template source "server" needs the model\'s base URL');
  const base = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const url = `${base}/props`;
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_PROPS_TIMEOUT_MS) });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return fail(
      timedOut
        ? `GET ${url} timed out after ${options.timeoutMs ?? DEFAULT_PROPS_TIMEOUT_MS} ms`
        : `GET ${url} failed: ${describeError(error)}`,
    );
  }
  if (!response.ok)
    return fail(
      `GET ${url} answered ` +
        (`${response.status}` +
          `${
            response.status === 404
              ? ' (the server does not publish its ' + "chat template; llama.cpp's server does)"
              : ''
          }`),
    );
  const text = await readCapped(response, DEFAULT_MAX_TEMPLATE_FILE_BYTES);
  if (text === undefined)
    return fail(
      `GET ${url} answered more than ${DEFAULT_MAX_TEMPLATE_FILE_BYTES} ` +
        `bytes (a /props answer with a chat template is far smaller)`,
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return fail(`GET ${url} did not answer JSON`);
  }
  const record = isJsonObject(body) ? body : {};
  const template =
    options.templateName === undefined
      ? (record.chat_template_tool_use ?? record.chat_template)
      : record[`chat_template_${options.templateName}`];
  if (typeof template !== 'string' || template.trim() === '')
    return fail(`GET ${url} answered without a chat_template`);
  return withTokens({ template, origin: url }, record.bos_token, record.eos_token);
}

/** The body as text, or undefined once it grows past `max` bytes (a server is untrusted input). */
async function readCapped(response: Response, max: number): Promise<string | undefined> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A chat template from a source: a template file, a Hugging Face
 * tokenizer_config.json, a .gguf file's metadata, or `server` (the serving
 * stack's `GET /props`). Never throws: a failure says what was wrong.
 */
export async function loadChatTemplate(source: string, options: LoadChatTemplateOptions): Promise<LoadedChatTemplate> {
  if (source === 'server') return fromServer(options);
  const path = resolve(options.cwd, source);
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) return fail(`${source} is not a file`);
    size = info.size;
  } catch {
    return fail(`chat template file not found: ${source}`);
  }
  if (path.toLowerCase().endsWith('.gguf')) return fromGguf(path, source, options.templateName);
  if (size > DEFAULT_MAX_TEMPLATE_FILE_BYTES)
    return fail(
      `${source} is ${size} bytes; a chat template or ` +
        `tokenizer_config.json is at most ${DEFAULT_MAX_TEMPLATE_FILE_BYTES}`,
    );
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return fail(`${source} could not be read: ${describeError(error)}`);
  }
  if (path.toLowerCase().endsWith('.json')) return fromTokenizerConfig(text, basename(source), options.templateName);
  if (text.trim() === '') return fail(`${source} is empty`);
  return { ok: true, template: text, origin: source };
}
