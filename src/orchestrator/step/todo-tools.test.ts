import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_TODOS, TODO_TOOLS, checkTodos, withTodos } from './todo-tools.ts';

describe('todo tools', () => {
  it('accepts a list with at most one item in progress', () => {
    const todos = [
      { id: '1', text: 'a', status: 'completed' },
      { id: '2', text: 'b', status: 'in_progress' },
      { id: '3', text: 'c', status: 'pending' },
    ];
    assert.deepEqual(checkTodos({ todos }), todos);
    assert.deepEqual(checkTodos({ todos: [] }), []);
  });

  it('refuses what breaks the rules, saying how to fix it', () => {
    const item = (id: string, status = 'pending') => ({ id, text: 't', status });
    const cases: [unknown, RegExp][] = [
      [{}, /needs "todos"/],
      [{ todos: Array.from({ length: MAX_TODOS + 1 }, (_, i) => item(String(i))) }, /at most 20 items; you sent 21/],
      [
        { todos: [item('a', 'in_progress'), item('b', 'in_progress')] },
        /at most one item may be in_progress; "a", "b" are/,
      ],
      [{ todos: [item('a'), item('a')] }, /"a" is used twice/],
      [{ todos: [{ id: 'a', text: '', status: 'pending' }] }, /todos\[0\]\.text must be a non-empty string/],
      [
        { todos: [{ id: 'a', text: 'x', status: 'done' }] },
        /todos\[0\]\.status must be pending, in_progress or completed/,
      ],
    ];
    for (const [args, error] of cases) assert.match(String(checkTodos(args as never)), error);
  });

  it('the todo tools come first and hide a source tool of the same name; both are read-only for the gate', () => {
    const other = {
      ...TODO_TOOLS[0],
      origin: { kind: 'mcp' as const, server: 's', tool: 'todo_write' },
    } as (typeof TODO_TOOLS)[number];
    const listed = withTodos([
      other,
      { name: 'x', description: 'x', inputSchema: {}, origin: { kind: 'mcp', server: 's', tool: 'x' } },
    ]);
    assert.deepEqual(
      listed.map((t) => `${t.origin.kind}:${t.name}`),
      ['builtin:todo_write', 'builtin:todo_read', 'mcp:x'],
    );
    assert.ok(TODO_TOOLS.every((t) => t.annotations?.readOnlyHint === true));
  });
});
