// The console's shell: who is signed in, the theme, and which view the URL's
// hash names (#/runs, #/runs/<id>, #/new, #/tools, #/stats).
import { api, ApiError, setCsrfToken, type ConsoleSession, type SessionInfo } from './api.ts';
import { clear, h } from './dom.ts';
import { newRunView } from './views/new-run.ts';
import { runView } from './views/run.ts';
import { runsListView } from './views/runs-list.ts';
import { signInView } from './views/sign-in.ts';
import { statsView } from './views/stats.ts';
import { toolsView } from './views/tools.ts';

export interface AppContext {
  session: SessionInfo;
  /** Called when a view leaves: stops streams and timers. */
  onLeave(cleanup: () => void): void;
  navigate(hash: string): void;
}

const view = document.getElementById('view') as HTMLElement;
const who = document.getElementById('who') as HTMLElement;
const signOut = document.getElementById('sign-out') as HTMLButtonElement;
const themeButton = document.getElementById('theme') as HTMLButtonElement;
let session: ConsoleSession = { authenticated: false, keysRequired: true };
let cleanups: (() => void)[] = [];

function applyTheme(theme: string): void {
  document.documentElement.dataset['theme'] = theme;
  themeButton.textContent = theme === 'dark' ? 'Light theme' : 'Dark theme';
}

const stored = localStorage.getItem('toolgate.theme');
applyTheme(stored ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'));
themeButton.addEventListener('click', () => {
  const next = document.documentElement.dataset['theme'] === 'dark' ? 'light' : 'dark';
  localStorage.setItem('toolgate.theme', next);
  applyTheme(next);
});

signOut.addEventListener('click', () => {
  void api.signOut().finally(() => {
    setCsrfToken(undefined);
    void boot('#/sign-in');
  });
});

function showWho(): void {
  clear(who);
  if (session.keysRequired && session.authenticated) {
    who.append(
      h('span', { class: 'badge' }, `tenant ${session.tenantId ?? '—'}`),
      session.userId === undefined ? '' : h('span', { class: 'badge' }, `user ${session.userId}`),
      session.roles === undefined || session.roles.length === 0
        ? ''
        : h('span', { class: 'badge', title: 'your roles' }, `roles ${session.roles.join(', ')}`),
    );
  } else if (!session.keysRequired)
    who.append(
      h(
        'span',
        { class: 'badge', title: 'the server has no API keys: every local caller sees every run' },
        'open (no API keys)',
      ),
    );
  signOut.hidden = !(session.keysRequired && session.authenticated);
}

async function route(): Promise<void> {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
  const hash = location.hash === '' ? '#/runs' : location.hash;
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    if (hash.startsWith(`#/${link.dataset['nav'] ?? ''}`)) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const ctx: AppContext = {
    session,
    onLeave: (cleanup) => cleanups.push(cleanup),
    navigate: (next) => {
      location.hash = next;
    },
  };
  clear(view);
  if (session.keysRequired && !session.authenticated) {
    view.append(
      signInView(async (signedIn) => {
        session = { ...signedIn, authenticated: true, keysRequired: true };
        setCsrfToken(signedIn.csrfToken);
        showWho();
        if (location.hash === '' || location.hash === '#/sign-in') location.hash = '#/runs';
        else await route();
      }, session.signIn),
    );
    return;
  }
  const [, first, second] = hash.split('/');
  try {
    if (first === 'runs' && second !== undefined && second !== '')
      view.append(await runView(ctx, decodeURIComponent(second)));
    else if (first === 'new') view.append(await newRunView(ctx));
    else if (first === 'tools') view.append(await toolsView());
    else if (first?.split('?')[0] === 'stats') view.append(await statsView(ctx));
    else view.append(await runsListView(ctx));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      session = { ...session, authenticated: false };
      showWho();
      await route();
      return;
    }
    view.append(h('p', { class: 'error', role: 'alert' }, error instanceof Error ? error.message : String(error)));
  }
}

async function boot(hash?: string): Promise<void> {
  try {
    session = await api.session();
  } catch (error) {
    clear(view);
    view.append(
      h(
        'p',
        { class: 'error', role: 'alert' },
        `The server did not answer: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
    return;
  }
  setCsrfToken(session.csrfToken);
  showWho();
  if (hash !== undefined && location.hash !== hash) location.hash = hash;
  else await route();
}

window.addEventListener('hashchange', () => void route());
void boot();
