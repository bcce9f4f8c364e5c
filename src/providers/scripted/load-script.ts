import { readFile } from 'node:fs/promises';
import { ToolgateError } from '../../core/errors.ts';
import { parseScript, type ScriptedScript } from './script-schema.ts';

/** Reads and validates a scripted model script (JSON; format in script-schema.ts). */
export async function loadScript(file: string): Promise<ScriptedScript> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolgateError('usage', `cannot read scripted model script ${file}: ${reason}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolgateError('config_invalid', `scripted model script ${file} is not valid JSON: ${reason}`, { cause: error });
  }
  return parseScript(json, file);
}
