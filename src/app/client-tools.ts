import { TOOL_NAME_PATTERN, ToolgateError, isJsonObject, type ModelToolDefinition } from '../core/index.ts';
import { sharedValidator } from '../validation/index.ts';
import { slowPatterns } from './slow-patterns.ts';

/** More than any real client declares; a bound on what each model turn carries. */
export const MAX_CLIENT_TOOLS = 128;

/**
 * Checks the tools a caller declares to run itself before any run exists: names usable by every model API, unique,
 * schemas that are JSON objects the validator compiles. A bad one is the caller's error, named with what to fix.
 */
export function checkClientTools(tools: readonly ModelToolDefinition[]): ModelToolDefinition[] {
  if (!Array.isArray(tools)) throw new ToolgateError('usage', 'clientTools must be an array of tool definitions');
  if (tools.length > MAX_CLIENT_TOOLS) {
    throw new ToolgateError('usage', `at most ${MAX_CLIENT_TOOLS} client tools per request; got ${tools.length}`);
  }
  const seen = new Set<string>();
  return tools.map((tool, index) => {
    const where = `clientTools[${index}]`;
    if (!isJsonObject(tool) || typeof tool.name !== 'string' || !TOOL_NAME_PATTERN.test(tool.name)) {
      throw new ToolgateError(
        'usage',
        `${where}: a tool needs a name of 1 to 64 letters, digits, "_" or "-" (e.g. "get_weather")`,
      );
    }
    if (seen.has(tool.name)) throw new ToolgateError('usage', `${where}: the tool ${tool.name} is declared twice`);
    seen.add(tool.name);
    const parameters = tool.parameters;
    if (!isJsonObject(parameters)) {
      throw new ToolgateError('usage', `${where} (${tool.name}): parameters must be a JSON Schema object`);
    }
    const slow = slowPatterns(parameters)[0];
    if (slow !== undefined) {
      throw new ToolgateError(
        'usage',
        `${where} (${tool.name}): the regular expression ${JSON.stringify(slow.pattern.slice(0, 80))} at ` +
          `parameters${slow.at} could take exponential time to match (a repeated group with a repetition inside, ` +
          'like (a+)+ or (\\d+,)*), so toolgate does not run it on model output; leave the pattern out (your tool ' +
          'still checks its input) or write it without nested repetition',
      );
    }
    // Compiles the schema (cached for the run's calls); only a schema problem matters here, not the value checked.
    const compiled = sharedValidator().validate(parameters, {});
    const broken = compiled.ok ? undefined : compiled.issues.find((issue) => issue.code === 'invalid_schema');
    if (broken !== undefined) {
      throw new ToolgateError(
        'usage',
        `${where} (${tool.name}): parameters is not a JSON Schema toolgate can use: ${broken.message}`,
      );
    }
    const description = typeof tool.description === 'string' ? tool.description : '';
    return { name: tool.name, description, parameters };
  });
}
