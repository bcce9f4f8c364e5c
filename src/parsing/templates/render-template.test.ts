import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileTemplate, renderTemplate } from './render-template.ts';

function render(source: string, variables: Record<string, unknown> = {}): string {
  const compiled = compileTemplate(source);
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.reason);
  const result = renderTemplate(compiled.template, variables);
  assert.ok(result.ok, result.ok ? '' : result.reason);
  return result.text;
}

describe('renderTemplate: Python the interpreter lacks', () => {
  it('repeats a string by an integer, either side (indentation in GigaChat 3)', () => {
    assert.equal(render(`{{ '-' * 3 }}|{{ 2 * 'ab' }}|{{ 'x' * 0 }}|{{ 2 * 3 }}|{{ 1.5 * 2 }}`), '---|abab||6|3.0');
  });

  it('evaluates each operand once', () => {
    assert.equal(
      render(
        `{% set ns = namespace(l=[]) %}{% macro f() %}{{ ns.l.append(1) ` +
          `}}{% endmacro %}{% set x = f() * 1 %}{{ ns.l | length }}`,
      ),
      '1',
    );
  });

  it('stops a repetition that would be huge, before making it', () => {
    const compiled = compileTemplate(`{{ 'abc' * 100000000 }}`);
    assert.ok(compiled.ok);
    const result = renderTemplate(compiled.template, {});
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.reason, /string longer than/);
  });

  it('tests none against a list (a missing schema.get("format"))', () => {
    assert.equal(
      render(`{{ x in ['date'] }}|{{ x not in ['date'] }}|{{ x in [none] }}|{{ 'date' in ['date'] }}`, { x: null }),
      'false|true|true|true',
    );
  });

  it('unpacks tuples in a for loop (GigaChat 3.5 builds (key, value) pairs)', () => {
    assert.equal(
      render(
        `{% set ns = namespace(p=[]) %}{% for k, v in {'a': 1, 'b': 2}.items() %}{% set ns.p ` +
          `= ns.p + [(k, v)] %}{% endfor %}{% for k, v in ns.p %}{{ k }}={{ v }};{% endfor %}`,
      ),
      'a=1;b=2;',
    );
  });

  it('still short-circuits and/or', () => {
    assert.equal(render(`{{ x and x.missing }}|{{ 'y' or raise_exception('no') }}`, { x: null }), '|y');
  });
});
