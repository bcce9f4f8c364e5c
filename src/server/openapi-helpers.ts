/** Building blocks of the OpenAPI document (openapi.ts and the files it merges). */
export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: Schema, description: string): Schema => ({
  description,
  content: { 'application/json': { schema } },
});
export const error = (description: string): Schema => json(ref('Error'), description);
export const jsonObject: Schema = { type: 'object', additionalProperties: true };

export const AUTH_ERRORS = { '401': error('Missing or invalid API key, or an expired session cookie.') };
/** Requests that may change something: a session cookie needs X-CSRF-Token, and a foreign Origin is refused. */
export const BROWSER_ERRORS = {
  '403': error(
    '`forbidden`: signed in with the session cookie but no valid X-CSRF-Token, ' +
      'or an Origin that is neither this server nor in server.cors.origins.',
  ),
};
