import { error, type Schema } from './openapi-helpers.ts';

const tokenParameter: Schema = {
  name: 'token',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'The decision link’s token (a signed, expiring, single-use capability: no other credential is asked).',
};

const html = (description: string): Schema => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
});

/** Decision links (docs/approvals.md#decision-links). */
export const approvalPaths: Record<string, Record<string, Schema>> = {
  '/v1/approvals/{token}': {
    get: {
      summary: 'A decision link’s confirm page',
      description:
        'A self-contained HTML page showing the call (tool, arguments, why it waits), the decision the link makes ' +
        'and its expiry, with a Confirm button (a form POSTing to the same URL). Decides nothing: mail scanners ' +
        'and chat previews open links. Refusals are pages with the status below.',
      security: [],
      parameters: [tokenParameter],
      responses: {
        '200': html('The confirm page.'),
        '404': html('Not a valid decision link (or decision links are off, or its run is gone).'),
        '409': html('Already used, already decided (by whom, how, when), or the call changed since it was sent.'),
        '410': html('`link_expired`: the link expired; open the run in the console to decide.'),
      },
    },
    post: {
      summary: 'Decide through a decision link (confirm page or chat bot)',
      description:
        'From the confirm page (application/x-www-form-urlencoded, optional `reason`): an HTML page. From a bot ' +
        '(a JSON body, or Accept: application/json): JSON. The decision is recorded with `source: {via: "link" | ' +
        '"chat", target, linkId, actor?}`; a link decides once.',
      security: [],
      parameters: [tokenParameter],
      requestBody: {
        required: false,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              properties: {
                reason: { type: 'string', maxLength: 2000, description: 'Recorded with the decision.' },
                actor: { type: 'string', maxLength: 200, description: 'Who decided, as the bot says (not verified).' },
              },
            },
          },
          'application/x-www-form-urlencoded': {
            schema: { type: 'object', properties: { reason: { type: 'string', maxLength: 2000 } } },
          },
        },
      },
      responses: {
        '200': {
          description: 'Decided: JSON for a bot, an HTML page for the form.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['runId', 'toolCallId', 'decision', 'decided'],
                properties: {
                  runId: { type: 'string' },
                  toolCallId: { type: 'string' },
                  decision: { type: 'string', enum: ['approve', 'reject'] },
                  decided: { const: true },
                },
              },
            },
            'text/html': { schema: { type: 'string' } },
          },
        },
        '400': error('A body field that is not `reason` or `actor`, or one too long.'),
        '404': error('`not_found`: not a valid decision link (altered, another secret), or its run is gone.'),
        '409': error(
          '`conflict`: the link was already used (when), the call was already decided (how, by whom, when), or ' +
            'the call changed since the link was sent (edited or asked again).',
        ),
        '410': error('`link_expired`: the link expired (when); open the run in the console to decide.'),
        '415': error('A body that is neither JSON nor the confirm page’s form.'),
      },
    },
  },
};
