import { ToolgateError, type ModelAdapter } from '../core/index.ts';
import type { Settings } from '../config/resolve-settings.ts';
import { withEstimatedUsage } from '../providers/shared/estimate-usage.ts';
import { createModel } from './create-model.ts';

/** Model adapters by id, created on first use and kept; one that failed to open is tried again next time. */
export class ModelCache {
  readonly #models = new Map<string, Promise<ModelAdapter>>();
  /** The caller's own model, its missing usage estimated. */
  readonly #own: ModelAdapter | undefined;
  readonly #settings: Pick<Settings, 'model' | 'providers'>;
  readonly #cwd: string | undefined;

  constructor(options: {
    own: ModelAdapter | undefined;
    settings: Pick<Settings, 'model' | 'providers'>;
    cwd: string | undefined;
  }) {
    this.#own = options.own === undefined ? undefined : withEstimatedUsage(options.own);
    this.#settings = options.settings;
    this.#cwd = options.cwd;
  }

  /** The adapter for a model id (default: the configured model). */
  get(id?: string): Promise<ModelAdapter> {
    if (this.#own !== undefined && (id === undefined || id === this.#own.id)) return Promise.resolve(this.#own);
    const modelId = id ?? this.#settings.model;
    if (modelId === undefined) {
      return Promise.reject(
        new ToolgateError(
          'usage',
          'no model given: pass --model provider:model (e.g. openai:gpt-4o-mini) or set `model:` in toolgate.yaml',
        ),
      );
    }
    let adapter = this.#models.get(modelId);
    if (adapter === undefined) {
      adapter = createModel({
        model: modelId,
        providers: this.#settings.providers,
        ...(this.#cwd === undefined ? {} : { cwd: this.#cwd }),
      });
      adapter.catch(() => this.#models.delete(modelId));
      this.#models.set(modelId, adapter);
    }
    return adapter;
  }
}
