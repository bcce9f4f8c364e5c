import { jsonObject, ref, type Schema } from './openapi-helpers.ts';

const runIdHeader: Schema = {
  schema: { type: 'string' },
  description: 'The run that answers (set once the run exists, errors included).',
};

/** OpenAI's error body, as the OpenAI-compatible routes answer errors (`code` is toolgate's). */
const openAiError = (description: string): Schema => ({
  description,
  headers: { 'X-Toolgate-Run-Id': runIdHeader },
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['message', 'type', 'param', 'code'],
            properties: {
              message: { type: 'string' },
              type: {
                type: 'string',
                enum: [
                  'invalid_request_error',
                  'authentication_error',
                  'permission_error',
                  'not_found_error',
                  'rate_limit_error',
                  'server_error',
                  'api_error',
                ],
              },
              param: { type: 'null' },
              code: { type: 'string', description: 'The toolgate error code (ErrorInfo.code).' },
            },
          },
        },
      },
    },
  },
});

const toolgateField: Schema = {
  type: 'object',
  required: ['runId', 'status'],
  description: 'toolgate’s extension: the run, its status, and the call that waits for a person.',
  properties: {
    runId: { type: 'string' },
    status: { type: 'string' },
    pendingApproval: ref('PendingApproval'),
  },
};

const toolCall: Schema = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string' },
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: {
        name: { type: 'string' },
        arguments: { type: 'string', description: 'JSON text: the validated, normalised arguments.' },
      },
    },
  },
};

const message: Schema = {
  type: 'object',
  required: ['role', 'content'],
  properties: {
    role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
    content: {
      description: 'A string, or text parts `{type: "text", text}` (image, audio and file parts are refused).',
      oneOf: [{ type: 'string' }, { type: 'array', items: jsonObject }, { type: 'null' }],
    },
    tool_calls: { type: 'array', items: toolCall },
    tool_call_id: { type: 'string' },
    toolgate: toolgateField,
  },
};

const completion: Schema = {
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices', 'usage', 'toolgate'],
  properties: {
    id: { type: 'string', description: '`chatcmpl-<run id>`.' },
    object: { const: 'chat.completion' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { const: 0 },
          message,
          finish_reason: { type: 'string', enum: ['stop', 'length', 'tool_calls'] },
          logprobs: { type: 'null' },
        },
      },
    },
    usage: {
      type: 'object',
      properties: {
        prompt_tokens: { type: 'integer' },
        completion_tokens: { type: 'integer' },
        total_tokens: { type: 'integer' },
      },
    },
    toolgate: toolgateField,
  },
};

const STREAM_DESCRIPTION =
  'With `stream: true`: `data: <chat.completion.chunk>` events (the first with `delta.role`, text as ' +
  '`delta.content`, reasoning as `delta.reasoning_content`, client tool calls as `delta.tool_calls`, the last ' +
  'with `finish_reason` and the `toolgate` field; with `stream_options.include_usage`, a usage chunk with no ' +
  'choices), then `data: [DONE]`. `: keep-alive` comments while nothing else is sent. A run that fails after the ' +
  'stream began sends `data: {"error": {…}}` and ends. docs/openai.md maps every run event to its chunk.';

/** POST /v1/chat/completions, OpenAI-compatible (docs/openai.md). */
export const chatPaths: Record<string, Record<string, Schema>> = {
  '/v1/chat/completions': {
    post: {
      summary: 'OpenAI-compatible chat completion, answered by a toolgate run',
      description:
        'The messages are the conversation, `model` a toolgate model (allowed-model rules apply), `tools` the ' +
        'client’s tools (their calls are validated and normalised, then returned with finish_reason ' +
        '`tool_calls`); the tenant’s tools run inside toolgate through the gate. A call that needs a person ends ' +
        'the answer with a message naming the run (`toolgate.pendingApproval`); once decided, the next request of ' +
        'the conversation continues that run. `toolgate: {wait: true}` holds the answer until the decision. ' +
        'Thread: X-Toolgate-Thread-Id, else `metadata.thread`, else `user`. Errors are in OpenAI’s shape.',
      parameters: [
        {
          name: 'X-Toolgate-Thread-Id',
          in: 'header',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
          description: 'The conversation’s thread (wins over metadata.thread and user).',
        },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['model', 'messages'],
              description: 'Other OpenAI fields (temperature, top_p, seed, …) are accepted and ignored.',
              properties: {
                model: { type: 'string' },
                messages: { type: 'array', minItems: 1, items: message },
                stream: { type: 'boolean' },
                stream_options: { type: 'object', properties: { include_usage: { type: 'boolean' } } },
                tools: { type: 'array', items: jsonObject },
                tool_choice: { type: 'string', enum: ['auto', 'none'] },
                n: { const: 1 },
                user: { type: 'string', maxLength: 255 },
                metadata: jsonObject,
                toolgate: { type: 'object', properties: { wait: { type: 'boolean' } } },
              },
            },
          },
        },
      },
      responses: {
        '200': {
          description: 'The answer (or, with `stream: true`, its chunks).',
          headers: { 'X-Toolgate-Run-Id': runIdHeader },
          content: {
            'application/json': { schema: completion },
            'text/event-stream': { schema: { type: 'string', description: STREAM_DESCRIPTION } },
          },
        },
        '400': openAiError('Invalid body, an unsupported request (n > 1, images, audio), or a model not allowed.'),
        '401': openAiError('Missing or invalid API key.'),
        '403': openAiError('A browser request refused (CSRF token, Origin).'),
        '409': openAiError('The run was cancelled (`cancelled`).'),
        '429': openAiError('Overloaded, or the model endpoint rate-limited the run.'),
        '500': openAiError('The run failed (its error code: max_steps, a guard limit, …).'),
        '502': openAiError('The model endpoint failed.'),
        '503': openAiError('Shutting down, or no tool server reachable.'),
        '504': openAiError('The model endpoint timed out.'),
      },
    },
  },
};
