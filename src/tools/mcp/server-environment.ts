/**
 * Variables a spawned MCP server receives without `inheritEnv`, beside the
 * MCP SDK's own short list (see serverEnvironment): the ones that say how to
 * reach the network from here. Without them a server behind a corporate proxy,
 * or one that must trust a private CA, fails on its first request — with an
 * error that never mentions the variable. Proxy variables are read in both
 * spellings (curl and Python read the lower-case ones, many Node clients the
 * upper-case ones).
 */
export const DEFAULT_PASSED_ENV = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'NO_PROXY',
  'https_proxy',
  'http_proxy',
  'no_proxy',
] as const;

export interface ServerEnvironmentOptions {
  /** toolgate's own environment. */
  parent: Readonly<Record<string, string | undefined>>;
  /**
   * What the MCP SDK passes to every server it spawns (getDefaultEnvironment: HOME, LOGNAME, PATH, SHELL, TERM, USER).
   */
  sdkDefaults: Readonly<Record<string, string>>;
  /** `servers.<name>.inheritEnv`: the whole of `parent`. */
  inheritEnv?: boolean | undefined;
  /** `servers.<name>.env`: set last, over everything else. */
  env?: Readonly<Record<string, string>> | undefined;
}

/**
 * The environment of a stdio MCP server: the SDK's defaults, the network
 * variables above that are set, and `env:` over them; with `inheritEnv: true`
 * all of toolgate's environment instead of the first two. Secrets in
 * toolgate's environment (model keys, DATABASE_URL, session secrets) therefore
 * reach a server only when its entry asks for them, by name in `env:` or with
 * `inheritEnv`.
 */
export function serverEnvironment(options: ServerEnvironmentOptions): Record<string, string> {
  const base: Record<string, string> = {};
  if (options.inheritEnv === true) {
    for (const [name, value] of Object.entries(options.parent)) if (value !== undefined) base[name] = value;
  } else {
    Object.assign(base, options.sdkDefaults);
    for (const name of DEFAULT_PASSED_ENV) {
      const value = options.parent[name];
      if (value !== undefined && value !== '') base[name] = value;
    }
  }
  return { ...base, ...options.env };
}
