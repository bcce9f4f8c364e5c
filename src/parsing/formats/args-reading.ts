import type { JsonObject } from '../../core/json.ts';
import type { RepairKind } from '../types.ts';

/** What reading a span of arguments in one grammar gave: the arguments, or where and why it failed. */
export type ArgsReading =
  | { ok: true; args: JsonObject; repairs: RepairKind[] }
  /** `cut`: the span ends inside the arguments at the end of the text. */
  | { ok: false; message: string; position: number; cut: boolean };
