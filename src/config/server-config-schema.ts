import { z } from 'zod';
import { isJsonObject } from '../core/index.ts';
import { unknownKeyMessage } from './unknown-key-message.ts';

/** `servers.<name>` values and headers: YAML reads `3000` and `true` as numbers and booleans, so say how to quote. */
export const stringMapSchema = z.record(
  z.string(),
  z.string({ error: 'must be a string; quote numbers and true/false, e.g. "3000"' }),
  {
    error: 'must be a map of names to strings, e.g. { LOG_LEVEL: debug }',
  },
);

const stdioServerSchema = z.strictObject({
  command: z
    .string({ error: 'must be the program to run, e.g. command: node' })
    .min(1, 'must not be empty, e.g. command: node'),
  args: z
    .array(z.string({ error: 'must be a string; quote numbers, e.g. "3000"' }), {
      error: 'must be a list of strings, e.g. args: ["server.js", "--port", "3000"]',
    })
    .optional(),
  env: stringMapSchema.optional(),
  /** The server gets toolgate's whole environment (default: a short list, docs/configuration.md). */
  inheritEnv: z
    .boolean({ error: "must be true or false: true passes toolgate's whole environment to the server" })
    .optional(),
  cwd: z.string({ error: 'must be a folder path, e.g. cwd: ./servers' }).optional(),
  timeoutMs: z.number().int().positive().optional(),
});

const httpServerSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. url: http://127.0.0.1:3000/mcp' }),
  headers: stringMapSchema.optional(),
  timeoutMs: z.number().int().positive().optional(),
});

export type StdioServerConfig = z.infer<typeof stdioServerSchema>;
export type HttpServerConfig = z.infer<typeof httpServerSchema>;
/** An MCP server: spawned over stdio (`command`) or reached over Streamable HTTP (`url`). */
export type ServerConfig = StdioServerConfig | HttpServerConfig;

const STDIO_KEYS = Object.keys(stdioServerSchema.shape);
const HTTP_KEYS = Object.keys(httpServerSchema.shape);
const ALL_KEYS = [...new Set([...STDIO_KEYS, ...HTTP_KEYS])];

const NEEDS_ONE =
  'a server needs either `command` (and optional args, env, inheritEnv, cwd) ' +
  'to spawn it over stdio, or `url` (and optional headers) for Streamable HTTP';

type Issue = { path: PropertyKey[]; message: string };

/**
 * One server entry. The branch is chosen by which of `command` / `url` is
 * present instead of a plain union: a union can only say "matches neither",
 * while a chosen branch can name the key that is wrong.
 */
export const serverConfigSchema = z.unknown().transform((value, ctx): ServerConfig => {
  const checked = checkServer(value);
  if ('server' in checked) return checked.server;
  for (const issue of checked.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  return z.NEVER;
});

function checkServer(value: unknown): { server: ServerConfig } | { issues: Issue[] } {
  if (!isJsonObject(value)) {
    return {
      issues: [
        {
          path: [],
          message:
            `must be a map, e.g. { command: node, args: [server.js] ` +
            `} or { url: http://127.0.0.1:3000/mcp }; ${NEEDS_ONE}`,
        },
      ],
    };
  }
  const hasCommand = 'command' in value;
  const hasUrl = 'url' in value;
  if (hasCommand === hasUrl) {
    // Unknown keys first: `comand: node` explains the missing `command` better than a general sentence.
    const unknown = Object.keys(value)
      .filter((key) => !ALL_KEYS.includes(key))
      .map((key) => ({ path: [key], message: unknownKeyMessage(key, ALL_KEYS) }));
    if (hasCommand)
      return {
        issues: [
          { path: [], message: 'has both `command` (a stdio server) and `url` (an HTTP server); keep one of them' },
          ...unknown,
        ],
      };
    return { issues: unknown.length > 0 ? unknown : [{ path: [], message: NEEDS_ONE }] };
  }
  const [schema, keys, other, kind, otherKind] = hasCommand
    ? [stdioServerSchema, STDIO_KEYS, HTTP_KEYS, 'a stdio server (command)', 'HTTP servers (url)']
    : [httpServerSchema, HTTP_KEYS, STDIO_KEYS, 'an HTTP server (url)', 'stdio servers (command)'];
  const result = schema.safeParse(value);
  if (result.success) return { server: result.data };
  const issues = result.error.issues.flatMap((issue): Issue[] => {
    if (issue.code !== 'unrecognized_keys') return [{ path: issue.path, message: issue.message }];
    return issue.keys.map((key) => ({
      path: [...issue.path, key],
      message: other.includes(key)
        ? `belongs to ${otherKind}; ${kind} takes ${keys.join(', ')}`
        : unknownKeyMessage(key, keys),
    }));
  });
  return { issues };
}
