import { basename, resolve } from 'node:path';
import { ToolgateError, describeError } from '../core/index.ts';
import type { ParsingSettings } from '../config/resolve-settings.ts';
import { matchModelPattern } from '../gate/index.ts';
import { checkCallFormat } from '../parsing/index.ts';
import type { CallFormat } from '../parsing/formats/call-format.ts';

export type { CallFormat };

/** A `parsing.chatTemplates` source that asks the model's server (`GET /props`) instead of naming a file. */
export const TEMPLATE_FROM_SERVER = 'server';

const SCRIPTED = 'scripted:';

export type LoadedTemplate =
  { ok: true; template: string; origin: string; bosToken?: string; eosToken?: string } | { ok: false; reason: string };
export type DerivedFormat = { ok: true; format: CallFormat; notes: string[] } | { ok: false; reason: string };

/** Reading a chat template and deriving its call format (chat-template-source.ts, parsing/templates). */
export interface TemplateAnalysis {
  load: (source: string, options: { cwd: string; baseUrl?: string; fetch?: typeof fetch }) => Promise<LoadedTemplate>;
  derive: (template: string, options?: { id?: string; bosToken?: string; eosToken?: string }) => DerivedFormat;
  /** The format in words, for people (`toolgate parse --explain`). */
  explain: (format: CallFormat) => string;
}

/**
 * The template reader and its analysis, loaded on first use: the Jinja
 * renderer and the GGUF reader stay out of every start-up that has no template.
 */
export async function loadTemplateAnalysis(): Promise<TemplateAnalysis> {
  const [{ loadChatTemplate }, { deriveFormat }, { explainFormat }] = await Promise.all([
    import('./chat-template-source.ts'),
    import('../parsing/templates/derive-format.ts'),
    import('../parsing/templates/explain-format.ts'),
  ]);
  return { load: loadChatTemplate, derive: deriveFormat, explain: explainFormat };
}

/**
 * `parsing.formats` checked against the CallFormat shape. Every problem is a
 * `config_invalid` line with its key path, as the schema's own are.
 */
export function checkConfiguredFormats(formats: readonly unknown[], source = 'the config'): CallFormat[] {
  const checked: CallFormat[] = [];
  const problems: string[] = [];
  formats.forEach((value, i) => {
    const result = checkCallFormat(value, `parsing.formats.${i}`);
    if (result.ok) checked.push({ ...result.format, origin: 'config' });
    else problems.push(...result.problems);
  });
  if (problems.length > 0) {
    throw new ToolgateError(
      'config_invalid',
      `${source} is not a valid toolgate config:\n${problems.map((p) => `  - ${p}`).join('\n')}\nCall ` +
        `formats are described in docs/parsing.md and docs/configuration.md.`,
    );
  }
  return checked;
}

/**
 * One template's format, for `toolgate parse --chat-template`: read, analysed,
 * explained; or why it could not be.
 */
export async function formatFromTemplate(
  source: string,
  options: { cwd: string; baseUrl?: string; analysis?: () => Promise<TemplateAnalysis> },
): Promise<
  { ok: true; format: CallFormat; notes: string[]; origin: string; explanation: string } | { ok: false; reason: string }
> {
  let analysis: TemplateAnalysis;
  try {
    analysis = await (options.analysis ?? loadTemplateAnalysis)();
  } catch (error) {
    return { ok: false, reason: `the chat template reader could not be loaded: ${describeError(error)}` };
  }
  const loaded = await analysis.load(source, {
    cwd: options.cwd,
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
  });
  if (!loaded.ok) return { ok: false, reason: `the chat template could not be read from ${source}: ${loaded.reason}` };
  const derived = analysis.derive(loaded.template, {
    id: templateId(loaded.origin),
    ...(loaded.bosToken === undefined ? {} : { bosToken: loaded.bosToken }),
    ...(loaded.eosToken === undefined ? {} : { eosToken: loaded.eosToken }),
  });
  if (!derived.ok)
    return { ok: false, reason: `the chat template from ${loaded.origin} could not be analysed: ${derived.reason}` };
  return {
    ok: true,
    format: derived.format,
    notes: derived.notes,
    origin: loaded.origin,
    explanation: analysis.explain(derived.format),
  };
}

/** The derived format's id (it becomes `template:<id>`): the file's name, or the server's URL. */
function templateId(origin: string): string {
  return origin.includes('://') ? origin : basename(origin);
}

export interface CallFormatsOptions {
  parsing: ParsingSettings | undefined;
  /** Where relative template files and `scripted:` model files resolve. */
  cwd: string;
  /** The base URL of a model's provider, for a `server` template. */
  baseUrlOf: (model: string) => string | undefined;
  /** Told once per template source that cannot be used, with why. */
  warn: (message: string) => void;
  /** Where the config came from, for its errors. */
  source?: string;
  analysis?: () => Promise<TemplateAnalysis>;
  fetch?: typeof fetch;
}

/**
 * The call formats the runs of each model read besides the built-in lexicon:
 * the configured ones, then the one derived from the model's chat template
 * (the most specific `parsing.chatTemplates` pattern that matches it). A
 * template is read and analysed once per source (per server for `server`); one
 * that cannot be is warned about once and left out — a run never fails for it.
 */
export class CallFormats {
  readonly configured: readonly CallFormat[];
  readonly #options: CallFormatsOptions;
  readonly #derived = new Map<string, Promise<CallFormat | undefined>>();
  #analysis: Promise<TemplateAnalysis> | undefined;

  constructor(options: CallFormatsOptions) {
    this.#options = options;
    this.configured = checkConfiguredFormats(options.parsing?.formats ?? [], options.source);
  }

  /** The template source that applies to a model, if any. */
  templateSourceFor(model: string): string | undefined {
    const file = (id: string): string =>
      id.startsWith(SCRIPTED) ? SCRIPTED + resolve(this.#options.cwd, id.slice(SCRIPTED.length)) : id;
    const id = file(model);
    return Object.entries(this.#options.parsing?.chatTemplates ?? {})
      .filter(([pattern]) => matchModelPattern(file(pattern), id))
      .sort(([a], [b]) => b.replaceAll('*', '').length - a.replaceAll('*', '').length)[0]?.[1];
  }

  /** The formats for a run of this model. Never rejects. */
  async forModel(model: string): Promise<readonly CallFormat[]> {
    const source = this.templateSourceFor(model);
    if (source === undefined) return this.configured;
    const baseUrl = source === TEMPLATE_FROM_SERVER ? this.#options.baseUrlOf(model) : undefined;
    const key = source === TEMPLATE_FROM_SERVER ? `${source} ${baseUrl ?? ''}` : resolve(this.#options.cwd, source);
    let derived = this.#derived.get(key);
    if (derived === undefined) {
      derived = this.#derive(model, source, baseUrl);
      this.#derived.set(key, derived);
    }
    const format = await derived;
    return format === undefined ? this.configured : [...this.configured, format];
  }

  async #derive(model: string, source: string, baseUrl: string | undefined): Promise<CallFormat | undefined> {
    const where =
      source === TEMPLATE_FROM_SERVER ? `the server${baseUrl === undefined ? '' : ` at ${baseUrl}`}` : source;
    const fallback = 'its tool calls are read with the built-in formats only';
    try {
      this.#analysis ??= (this.#options.analysis ?? loadTemplateAnalysis)();
      const analysis = await this.#analysis;
      const loaded = await analysis.load(source, {
        cwd: this.#options.cwd,
        ...(baseUrl === undefined ? {} : { baseUrl }),
        ...(this.#options.fetch === undefined ? {} : { fetch: this.#options.fetch }),
      });
      if (!loaded.ok) {
        this.#options.warn(
          `the chat template of ${model} (parsing.chatTemplates) could ` +
            `not be read from ${where}: ${loaded.reason}; ${fallback}`,
        );
        return undefined;
      }
      const derived = analysis.derive(loaded.template, {
        id: templateId(loaded.origin),
        ...(loaded.bosToken === undefined ? {} : { bosToken: loaded.bosToken }),
        ...(loaded.eosToken === undefined ? {} : { eosToken: loaded.eosToken }),
      });
      if (!derived.ok) {
        this.#options.warn(
          `the chat template of ${model} from ${loaded.origin} could not be analysed: ${derived.reason}; ${fallback}`,
        );
        return undefined;
      }
      return derived.format;
    } catch (error) {
      this.#options.warn(
        `the chat template of ${model} from ${where} could not be used: ${describeError(error)}; ${fallback}`,
      );
      return undefined;
    }
  }
}
