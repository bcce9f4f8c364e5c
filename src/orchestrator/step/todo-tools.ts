import {
  draft,
  isJsonObject,
  toolError,
  type JsonObject,
  type TodoItem,
  type ToolResult,
  type ToolSpec,
} from '../../core/index.ts';
import type { ConversationState } from '../state/run-state.ts';
import type { AppendFn } from '../log/transition.ts';

export const TODO_WRITE = 'todo_write';
export const TODO_READ = 'todo_read';
export const MAX_TODOS = 20;
export const TODO_REMINDER = '<reminder>Update your todos.</reminder>';

const ORIGIN = { kind: 'builtin' as const, server: 'toolgate' };

/**
 * The built-in todo tools. Both only touch the run's own list (kept in its
 * log as todo_updated events), nothing outside toolgate: they are read-only
 * for the gate, so no approval rule for writes stops a model from keeping its list.
 */
export const TODO_TOOLS: readonly ToolSpec[] = [
  {
    name: TODO_WRITE,
    description:
      'Replace your whole todo list for this task. Keep it current: mark an item in_progress when you start it ' +
      '(at most one at a time) and completed when it is done. At most 20 items.',
    inputSchema: {
      type: 'object',
      properties: {
        todos: {
          type: 'array',
          maxItems: MAX_TODOS,
          items: {
            type: 'object',
            properties: {
              id: { type: 'string', minLength: 1, maxLength: 64 },
              text: { type: 'string', minLength: 1, maxLength: 500 },
              status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
            },
            required: ['id', 'text', 'status'],
            additionalProperties: false,
          },
        },
      },
      required: ['todos'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, title: 'Write the todo list' },
    origin: { ...ORIGIN, tool: TODO_WRITE },
  },
  {
    name: TODO_READ,
    description: 'Read your current todo list for this task.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, title: 'Read the todo list' },
    origin: { ...ORIGIN, tool: TODO_READ },
  },
];

/**
 * Answers a call to a todo tool. The call has been through the whole gate
 * (validated, audited, recorded) like any other; only its execution happens
 * here, on the run's own list: todo_write records the new list (todo_updated).
 */
export async function runTodoTool(
  request: { name: string; arguments: JsonObject; toolCallId: string },
  state: ConversationState,
  append: AppendFn,
): Promise<ToolResult> {
  if (request.name === TODO_READ) return listResult(state.todos);
  if (request.name !== TODO_WRITE) return toolError('tool_not_found', `no built-in tool named ${request.name}`);
  const checked = checkTodos(request.arguments);
  if (typeof checked === 'string') return toolError('invalid_arguments', checked);
  await append([draft('todo_updated', { todos: checked, toolCallId: request.toolCallId })]);
  return listResult(checked);
}

/** The run's tools with the todo tools first; a source's own tool of the same name is hidden. */
export function withTodos(tools: readonly ToolSpec[]): ToolSpec[] {
  const reserved = new Set(TODO_TOOLS.map((t) => t.name));
  return [...TODO_TOOLS, ...tools.filter((t) => !reserved.has(t.name))];
}

/** The list, or what is wrong with it in words the model can act on. */
export function checkTodos(args: JsonObject): TodoItem[] | string {
  const raw = args['todos'];
  if (!Array.isArray(raw)) return 'todo_write needs "todos": an array of {id, text, status} items';
  if (raw.length > MAX_TODOS) {
    return (
      `the todo list may hold at most ${MAX_TODOS} items; you sent ${raw.length}. ` +
      'Merge or drop some items and call todo_write again'
    );
  }
  const todos: TodoItem[] = [];
  const ids = new Set<string>();
  for (const [i, item] of raw.entries()) {
    if (!isJsonObject(item)) return `todos[${i}] must be an object {id, text, status}`;
    const { id, text, status } = item;
    if (typeof id !== 'string' || id === '') return `todos[${i}].id must be a non-empty string`;
    if (typeof text !== 'string' || text.trim() === '') return `todos[${i}].text must be a non-empty string`;
    if (status !== 'pending' && status !== 'in_progress' && status !== 'completed')
      return `todos[${i}].status must be pending, in_progress or completed`;
    if (ids.has(id)) return `todos[${i}].id "${id}" is used twice; every item needs its own id`;
    ids.add(id);
    todos.push({ id, text, status });
  }
  const active = todos.filter((t) => t.status === 'in_progress');
  if (active.length > 1) {
    return (
      `at most one item may be in_progress; ${active.map((t) => `"${t.id}"`).join(', ')} are. ` +
      'Keep the one you are working on in_progress, set the others to pending or completed, and call todo_write again'
    );
  }
  return todos;
}

function listResult(todos: readonly TodoItem[]): ToolResult {
  const text =
    todos.length === 0
      ? 'The todo list is empty.'
      : todos
          .map(
            (t) => `- [${t.status === 'completed' ? 'x' : t.status === 'in_progress' ? '~' : ' '}] ${t.id}: ${t.text}`,
          )
          .join('\n');
  return { ok: true, content: [{ type: 'text', text }], structuredContent: { todos: todos.map((t) => ({ ...t })) } };
}
