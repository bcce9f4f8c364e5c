import { api, ApiError, type SignedIn, type SignInChoice } from '../api.ts';
import { h } from '../dom.ts';

/**
 * Trades an API key for a session cookie; the key is not kept in the page. With issuers configured for the console
 * (GET /v1/session's `signIn`), a "Sign in with …" link each: the server runs the OpenID flow and sets the cookie,
 * so no token ever reaches the page.
 */
export function signInView(
  onSignedIn: (session: SignedIn) => Promise<void>,
  choices: readonly SignInChoice[] = [],
): HTMLElement {
  const key = h('input', {
    id: 'api-key',
    name: 'apiKey',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
    spellcheck: 'false',
  });
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'sign-in-error' });
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { class: 'card narrow', 'aria-labelledby': 'sign-in-title' },
    h('h1', { id: 'sign-in-title' }, 'Sign in'),
    issuerLinks(choices),
    h(
      'p',
      { class: 'muted' },
      'Enter an API key of your tenant. The server answers with a ' +
        'session cookie the page cannot read; the key itself is not stored.',
    ),
    h('div', { class: 'form-row' }, h('label', { for: 'api-key' }, 'API key'), key),
    error,
    button,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.textContent = '';
    button.disabled = true;
    void api
      .signIn(key.value.trim())
      .then(async (session) => {
        key.value = '';
        await onSignedIn(session);
      })
      .catch((e: unknown) => {
        error.textContent =
          e instanceof ApiError && e.status === 401
            ? 'That key is not valid here. Check the key configured for your tenant.'
            : e instanceof Error
              ? e.message
              : String(e);
        key.focus();
      })
      .finally(() => {
        button.disabled = false;
      });
  });
  queueMicrotask(() => key.focus());
  return form;
}

/** One link per issuer; it comes back to the route the person was on. */
function issuerLinks(choices: readonly SignInChoice[]): HTMLElement | undefined {
  if (choices.length === 0) return undefined;
  const back = location.hash === '' || location.hash.startsWith('#/sign-in') ? '#/runs' : location.hash;
  return h(
    'div',
    { class: 'form-row', 'data-testid': 'sign-in-issuers' },
    choices.map((choice) =>
      h(
        'a',
        { class: 'button', href: `${choice.url}&return=${encodeURIComponent(back)}` },
        `Sign in with ${hostOf(choice.issuer)}`,
      ),
    ),
    h('p', { class: 'muted' }, 'Or use an API key:'),
  );
}

function hostOf(issuer: string): string {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
}
