import { MAX_CHAT_ID_LENGTH } from './chat/ui-request.ts';
import { AUTH_ERRORS, BROWSER_ERRORS, error, jsonObject, type Schema } from './openapi-helpers.ts';

const UI_STREAM_DESCRIPTION =
  'The AI SDK UI message stream, protocol v1 (`x-vercel-ai-ui-message-stream: v1`): `data: <chunk JSON>` frames, ' +
  'each with `id: <event id>` (the event’s last chunk) or `id: <event id>:<n>` (its n-th), a `start` chunk without ' +
  'an id first, `: ping` comments while the run is quiet, and `data: [DONE]` at the end. The assistant message’s ' +
  'id is the run’s id. The stream ends with `finish` when the run ends, or when it waits for a decision (after a ' +
  '`tool-approval-request`, finish reason `tool-calls`). docs/ai-sdk.md maps every run event to its chunks.';

const uiStream = {
  'text/event-stream': { schema: { type: 'string', description: UI_STREAM_DESCRIPTION } },
};

const runIdHeader = {
  'X-Toolgate-Run-Id': { schema: { type: 'string' }, description: 'The run the stream follows.' },
};

const uiMessage: Schema = {
  type: 'object',
  required: ['id', 'role', 'parts'],
  properties: {
    id: { type: 'string' },
    role: { type: 'string', enum: ['system', 'user', 'assistant'] },
    parts: {
      type: 'array',
      items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } },
      description:
        'Read: `text` parts; tool parts (`dynamic-tool`, `tool-<name>`) with an outcome, as history; tool parts ' +
        'in state `approval-responded` of the last message, as decisions. Other parts are passed over.',
    },
  },
};

/** POST /v1/ui/chat and GET /v1/ui/chat/{chatId}/stream (src/server/routes/ui-chat.ts). */
export const uiChatPaths: Record<string, Record<string, Schema>> = {
  '/v1/ui/chat': {
    post: {
      summary: 'Chat with the AI SDK’s useChat (DefaultChatTransport): a UI message stream',
      description:
        'A question (the last message is the user’s) starts a run on the chat’s thread (`threadId` = the chat ' +
        'id) with the messages before it as history. An assistant message whose tool parts are ' +
        '`approval-responded` (addToolApprovalResponse) decides the calls its run holds and continues that run’s ' +
        'stream on the same message.',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              required: ['id', 'messages'],
              properties: {
                id: { type: 'string', minLength: 1, maxLength: MAX_CHAT_ID_LENGTH, description: 'The chat id.' },
                messages: { type: 'array', minItems: 1, items: uiMessage },
                trigger: { type: 'string', enum: ['submit-message', 'regenerate-message'] },
                messageId: { type: 'string' },
                model: { type: 'string', description: '"provider:model" for the run (the transport’s `body`).' },
                metadata: { ...jsonObject, description: 'Stored with the run.' },
              },
            },
          },
        },
      },
      responses: {
        '200': { description: 'The run’s stream.', headers: runIdHeader, content: uiStream },
        '400': error('Invalid body (named by field), or a model the caller may not use (model_not_allowed).'),
        ...AUTH_ERRORS,
        ...BROWSER_ERRORS,
        '404': error('An approval id toolgate did not send, or of a run this caller cannot see.'),
        '409': error('An approval id of a run of another chat.'),
        '413': error('Body too large (server.maxBodyBytes).'),
        '429': error('`overloaded`: too many runs waiting for a slot; retry after Retry-After seconds.'),
        '503': error('Shutting down, or no tool server reachable (tool_unavailable).'),
      },
    },
  },
  '/v1/ui/chat/{chatId}/stream': {
    get: {
      summary: 'Resume a chat’s stream (useChat’s resume)',
      parameters: [
        { name: 'chatId', in: 'path', required: true, schema: { type: 'string', maxLength: MAX_CHAT_ID_LENGTH } },
        {
          name: 'Last-Event-ID',
          in: 'header',
          schema: { type: 'string', pattern: '^[0-9]+(:[0-9]+)?$' },
          description:
            'Continue after this chunk (an id of the stream); without it, the run is replayed from its start.',
        },
        { name: 'after', in: 'query', schema: { type: 'integer', minimum: 0 }, description: 'As Last-Event-ID.' },
      ],
      responses: {
        '200': {
          description: 'The stream of the chat’s newest run, when it is running or waiting for a decision.',
          headers: runIdHeader,
          content: uiStream,
        },
        '204': { description: 'Nothing to resume: the chat has no run, or its newest run is over.' },
        '400': error('Invalid Last-Event-ID or parameters.'),
        ...AUTH_ERRORS,
      },
    },
  },
};
