// The checks Anthropic's Messages API makes before it runs a model, as a pure
// function so the mock server and its tests share one definition. Each message
// is the API's own wording where it has been seen on the wire (the API replies
// 400 invalid_request_error with it); the pydantic-style "Field required" /
// "Input should be ..." lines follow the validator the API uses for its other
// field errors. Only what adapters commonly get wrong is checked: a mock that
// accepted what the real API refuses would let an adapter bug through.

/** What the API accepts as `tools[].name` (the docs say {1,64}; the API enforces {1,128}). */
export const ANTHROPIC_TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/** Content block types a request may carry (the API knows more: server tool results, documents, search results...). */
const BLOCK_TYPES = [
  'text',
  'image',
  'document',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'search_result',
] as const;

const THINKING_DOCS =
  'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

/** The blocks of a message's content; a string content counts as one text block. */
function blocksOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function expectedTags(tags: readonly string[]): string {
  return tags.map((t) => `'${t}'`).join(', ');
}

function checkBlock(block: unknown, where: string): string | undefined {
  if (!isObject(block)) return `${where}: Input should be a valid dictionary or object to extract fields from`;
  const type = block['type'];
  if (type === undefined) return `${where}: Unable to extract tag using discriminator 'type'`;
  if (typeof type !== 'string' || !(BLOCK_TYPES as readonly string[]).includes(type)) {
    return (
      `${where}: Input tag '${String(type)}' found using 'type' does ` +
      `not match any of the expected tags: ${expectedTags(BLOCK_TYPES)}`
    );
  }
  const field = (name: string): string => `${where}.${type}.${name}`;
  switch (type) {
    case 'text':
      if (typeof block['text'] !== 'string')
        return block['text'] === undefined
          ? `${field('text')}: Field required`
          : `${field('text')}: Input should be a valid string`;
      if (block['text'] === '') return 'messages: text content blocks must be non-empty';
      return undefined;
    case 'tool_use':
      if (typeof block['id'] !== 'string') return `${field('id')}: Field required`;
      if (typeof block['name'] !== 'string') return `${field('name')}: Field required`;
      if (!isObject(block['input']))
        return block['input'] === undefined
          ? `${field('input')}: Field required`
          : `${field('input')}: Input should be a valid dictionary`;
      return undefined;
    case 'tool_result':
      if (typeof block['tool_use_id'] !== 'string') return `${field('tool_use_id')}: Field required`;
      return undefined;
    case 'thinking':
      if (typeof block['thinking'] !== 'string') return `${field('thinking')}: Field required`;
      if (typeof block['signature'] !== 'string') return `${field('signature')}: Field required`;
      return undefined;
    case 'redacted_thinking':
      if (typeof block['data'] !== 'string') return `${field('data')}: Field required`;
      return undefined;
    default:
      return undefined;
  }
}

function checkMessages(messages: unknown[]): string | undefined {
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${i}: Input should be a valid dictionary or object to extract fields from`;
    const role = message['role'];
    if (role === 'system') {
      return (
        'messages: Unexpected role "system". The Messages API accepts a ' +
        'top-level `system` parameter, not "system" as an input message role.'
      );
    }
    if (role === undefined) return `messages.${i}.role: Field required`;
    if (role !== 'user' && role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const content = message['content'];
    if (content === undefined) return `messages.${i}.content: Field required`;
    if (typeof content !== 'string' && !Array.isArray(content))
      return `messages.${i}.content: Input should be a valid string or a valid list`;
    const last = i === messages.length - 1;
    if ((content === '' || (Array.isArray(content) && content.length === 0)) && !(last && role === 'assistant')) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    if (Array.isArray(content)) {
      for (const [j, block] of content.entries()) {
        const problem = checkBlock(block, `messages.${i}.content.${j}`);
        if (problem !== undefined) return problem;
      }
    }
  }
  return checkToolPairing(messages.filter(isObject));
}

/**
 * Every tool_use must be answered by a tool_result at the very start of the
 * next message (results before any text), and every tool_result must answer a
 * tool_use of the message just before it.
 */
function checkToolPairing(messages: Json[]): string | undefined {
  for (const [i, message] of messages.entries()) {
    const blocks = blocksOf(message['content']);
    if (message['role'] === 'user') {
      const previous = messages[i - 1];
      const asked = new Set(
        previous?.['role'] === 'assistant'
          ? blocksOf(previous['content'])
              .filter((b) => b['type'] === 'tool_use')
              .map((b) => b['id'])
          : [],
      );
      for (const [j, block] of blocks.entries()) {
        if (block['type'] === 'tool_result' && !asked.has(block['tool_use_id'])) {
          return (
            `messages.${i}.content.${j}: unexpected \`tool_use_id\` found ` +
            `in \`tool_result\` blocks: ${String(block['tool_use_id'])}. ` +
            'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.'
          );
        }
      }
    }
    if (message['role'] === 'assistant') {
      const asked = blocks.filter((b) => b['type'] === 'tool_use').map((b) => String(b['id']));
      if (asked.length === 0) continue;
      const next = messages[i + 1];
      const answered = new Set<unknown>();
      if (next?.['role'] === 'user') {
        for (const block of blocksOf(next['content'])) {
          if (block['type'] !== 'tool_result') break;
          answered.add(block['tool_use_id']);
        }
      }
      const missing = asked.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return (
          `messages.${i}: \`tool_use\` ids were found without ` +
          `\`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
          'Each `tool_use` block must have a corresponding `tool_result` block in the next message.'
        );
      }
    }
  }
  return undefined;
}

function checkTools(tools: unknown): string | undefined {
  if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
  const names = new Set<string>();
  for (const [i, tool] of tools.entries()) {
    if (!isObject(tool)) return `tools.${i}: Input should be a valid dictionary or object to extract fields from`;
    const type = tool['type'];
    // Server tools (web_search_20250305, bash_20250124...) carry a dated type and no input_schema.
    if (typeof type === 'string' && /_\d{8}$/.test(type)) continue;
    if (type !== undefined && type !== null && type !== 'custom') {
      return (
        `tools.${i}: Input tag '${String(type)}' found using 'type' does not match any of the ` +
        `expected tags: 'custom', 'bash_20250124', 'text_editor_20250728', 'web_search_20250305'`
      );
    }
    const name = tool['name'];
    if (name === undefined) return `tools.${i}.custom.name: Field required`;
    if (typeof name !== 'string' || !ANTHROPIC_TOOL_NAME.test(name))
      return `tools.${i}.custom.name: String should match pattern '${ANTHROPIC_TOOL_NAME.source}'`;
    const schema = tool['input_schema'];
    if (schema === undefined) return `tools.${i}.custom.input_schema: Field required`;
    if (!isObject(schema)) return `tools.${i}.custom.input_schema: Input should be a valid dictionary`;
    if (schema['type'] !== 'object') return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
    if (names.has(name)) return 'tools: Tool names must be unique.';
    names.add(name);
  }
  return undefined;
}

function checkToolChoice(choice: unknown): string | undefined {
  if (!isObject(choice)) return 'tool_choice: Input should be a valid dictionary or object to extract fields from';
  const type = choice['type'];
  if (type === undefined) return "tool_choice: Unable to extract tag using discriminator 'type'";
  if (type !== 'auto' && type !== 'any' && type !== 'tool' && type !== 'none') {
    return (
      `tool_choice: Input tag '${String(type)}' found using 'type' does ` +
      `not match any of the expected tags: 'auto', 'any', 'tool', 'none'`
    );
  }
  if (type === 'tool' && typeof choice['name'] !== 'string') return 'tool_choice.tool.name: Field required';
  return undefined;
}

function checkThinking(thinking: unknown, maxTokens: number): string | undefined {
  if (!isObject(thinking)) return 'thinking: Input should be a valid dictionary or object to extract fields from';
  const type = thinking['type'];
  if (type !== 'enabled' && type !== 'disabled' && type !== 'adaptive') {
    return (
      `thinking: Input tag '${String(type)}' found using 'type' does not ` +
      `match any of the expected tags: 'enabled', 'disabled', 'adaptive'`
    );
  }
  if (type !== 'enabled') return undefined;
  const budget = thinking['budget_tokens'];
  if (budget === undefined) return 'thinking.enabled.budget_tokens: Field required';
  if (!isInteger(budget)) return 'thinking.enabled.budget_tokens: Input should be a valid integer';
  if (budget < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  if (budget >= maxTokens) return '`max_tokens` must be greater than `thinking.budget_tokens`.';
  return undefined;
}

/**
 * With thinking enabled, the last assistant turn of a tool loop must be sent
 * back as it came: starting with its (signed) thinking block.
 */
function checkThinkingReplay(messages: Json[]): string | undefined {
  const index = messages.findLastIndex((m) => m['role'] === 'assistant');
  if (index === -1) return undefined;
  const blocks = blocksOf(messages[index]?.['content']);
  if (!blocks.some((b) => b['type'] === 'tool_use')) return undefined;
  const first = blocks[0]?.['type'];
  if (first === 'thinking' || first === 'redacted_thinking') return undefined;
  return (
    `messages.${index}.content.0.type: Expected \`thinking\` ` +
    `or \`redacted_thinking\`, but found \`${String(first)}\`. ` +
    ('When `thinking` is enabled, a final `assistant` message must start with a thinking ' +
      'block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). ') +
    'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. ' +
    THINKING_DOCS
  );
}

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Returns the message of the 400 invalid_request_error the Messages API would
 * answer `body` (the parsed JSON) with, or undefined when it would accept it.
 * `headers` use lower-case names, as node's IncomingHttpHeaders do.
 */
export function checkAnthropicRequest(body: unknown, headers: HeaderBag): string | undefined {
  if ((header(headers, 'anthropic-version') ?? '') === '') return 'anthropic-version: header is required';
  if (!isObject(body)) return 'Input should be a valid dictionary or object to extract fields from';

  const model = body['model'];
  if (model === undefined) return 'model: Field required';
  if (typeof model !== 'string') return 'model: Input should be a valid string';

  const maxTokens = body['max_tokens'];
  if (maxTokens === undefined) return 'max_tokens: Field required';
  if (!isInteger(maxTokens)) return 'max_tokens: Input should be a valid integer';
  if (maxTokens < 1) return 'max_tokens: Input should be greater than or equal to 1';

  const messages = body['messages'];
  if (messages === undefined) return 'messages: Field required';
  if (!Array.isArray(messages)) return 'messages: Input should be a valid list';
  if (messages.length === 0) return 'messages: at least one message is required';

  const system = body['system'];
  if (system !== undefined && typeof system !== 'string') {
    if (
      !Array.isArray(system) ||
      !system.every((b) => isObject(b) && b['type'] === 'text' && typeof b['text'] === 'string')
    ) {
      return 'system: Input should be a valid string or a list of text blocks';
    }
  }

  const problem = checkMessages(messages);
  if (problem !== undefined) return problem;

  if (body['tools'] !== undefined) {
    const toolsProblem = checkTools(body['tools']);
    if (toolsProblem !== undefined) return toolsProblem;
  }
  const toolChoice = body['tool_choice'];
  if (toolChoice !== undefined) {
    const choiceProblem = checkToolChoice(toolChoice);
    if (choiceProblem !== undefined) return choiceProblem;
  }
  const thinking = body['thinking'];
  if (thinking !== undefined && thinking !== null) {
    const thinkingProblem = checkThinking(thinking, maxTokens);
    if (thinkingProblem !== undefined) return thinkingProblem;
    if (isObject(thinking) && thinking['type'] === 'enabled') {
      if (isObject(toolChoice) && (toolChoice['type'] === 'any' || toolChoice['type'] === 'tool')) {
        return 'Thinking may not be enabled when tool_choice forces tool use.';
      }
      return checkThinkingReplay(messages.filter(isObject));
    }
  }
  return undefined;
}
