import { api } from '../api.ts';
import { formatTime, h, pretty } from '../dom.ts';

/** The tools this tenant may use, with effect, approval rule, injected keys and schema; each server's state. */
export async function toolsView(): Promise<HTMLElement> {
  const { tools, servers } = await api.tools();
  return h(
    'div',
    {},
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'servers-title' },
      h('h1', { id: 'servers-title' }, 'Tool servers'),
      servers.length === 0
        ? h('p', { class: 'muted' }, 'No MCP servers are configured.')
        : h(
            'ul',
            { class: 'servers' },
            servers.map((s) =>
              h(
                'li',
                { 'data-testid': 'server', 'data-server': s.name },
                h('strong', {}, s.name),
                ' ',
                h('span', { class: `pill server-${s.state}` }, s.state),
                ` ${s.tools} tools · since ${formatTime(s.since)}`,
                s.error === undefined
                  ? null
                  : h(
                      'div',
                      { class: 'error' },
                      s.error,
                      s.retryAt === undefined ? '' : ` (retry at ${formatTime(s.retryAt)})`,
                    ),
              ),
            ),
          ),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'tools-title' },
      h('h1', { id: 'tools-title' }, `Tools (${tools.length})`),
      h(
        'div',
        { class: 'tools' },
        tools.map((tool) =>
          h(
            'article',
            { class: 'tool', 'data-testid': 'tool', 'data-tool': tool.name },
            h(
              'header',
              {},
              h('strong', {}, tool.name),
              h('span', { class: `badge effect-${tool.effect}` }, tool.effect),
              tool.approval === undefined
                ? null
                : h('span', { class: 'badge', title: 'approval rule' }, `approval: ${tool.approval}`),
              tool.untrusted === true ? h('span', { class: 'badge warn' }, 'untrusted output') : null,
              tool.available ? null : h('span', { class: 'badge warn' }, 'unavailable'),
            ),
            tool.description === undefined ? null : h('p', {}, tool.description),
            (tool.injected ?? []).length === 0
              ? null
              : h(
                  'p',
                  {},
                  'Injected by the server (hidden from the model): ',
                  (tool.injected ?? []).map((k) => h('code', { class: 'badge injected' }, k)),
                ),
            h('details', {}, h('summary', {}, 'Input schema'), h('pre', { class: 'mono' }, pretty(tool.inputSchema))),
          ),
        ),
      ),
    ),
  );
}
