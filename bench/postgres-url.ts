// The PostgreSQL the benchmarks use, named as the tests name theirs:
// TOOLGATE_TEST_POSTGRES_URL, else DATABASE_URL, else the local server CI starts.
// The URL may hold a password: messages name it only through `postgresLabel`,
// and error texts go through `withoutSecret` before they are printed or saved.

// The label is the store's own: one rule for what of a URL may be shown.
export { postgresLabel } from '../src/store/postgres/postgres-url.ts';

export const POSTGRES_URL =
  process.env['TOOLGATE_TEST_POSTGRES_URL'] || process.env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/test';

/** `text` with the URL's password, if it has one, replaced by `***`. */
export function withoutSecret(text: string, url: string): string {
  let secrets: string[];
  try {
    const parsed = new URL(url);
    secrets = [parsed.password, decodeURIComponent(parsed.password), parsed.searchParams.get('password') ?? ''];
  } catch {
    return text.replaceAll(url, '(the configured URL)');
  }
  return secrets.filter((s) => s !== '').reduce((out, secret) => out.replaceAll(secret, '***'), text);
}
