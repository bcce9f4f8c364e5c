import { Template } from '@huggingface/jinja';
import { describeError } from '../../core/describe-error.ts';
import { Environment, Interpreter } from './jinja-runtime.ts';
import type { AstNode, RuntimeValue, RuntimeValueClass } from './jinja-runtime.ts';

/** Largest template accepted (published ones are under 50 kB). */
export const DEFAULT_MAX_TEMPLATE_LENGTH = 512 * 1024;
/** Largest string a render may produce, or hold in any one value. */
export const DEFAULT_MAX_RENDER_LENGTH = 256 * 1024;
/** Interpreter steps allowed per render: real templates take a few thousand. */
export const DEFAULT_MAX_RENDER_STEPS = 500_000;
/** Longest `range()` a template may ask for. */
export const DEFAULT_MAX_RANGE = 10_000;

export type RenderResult = { ok: true; text: string } | { ok: false; reason: string };

export interface RenderLimits {
  maxRenderLength?: number;
  maxSteps?: number;
}

/** The error a template raises on purpose (`raise_exception`), told apart from our own limits. */
class TemplateRaised extends Error {}
class RenderLimitExceeded extends Error {}

/**
 * Counts every evaluation and checks every string made, so a hostile
 * template (deep loops, a string doubled forty times, runaway macro
 * recursion) stops with a reason instead of hanging or eating memory. The
 * interpreter has no `while`, so loops are bounded by their iterables; the
 * step budget bounds nested loops and `range` is capped.
 */
class GuardedInterpreter extends Interpreter {
  private steps = 0;
  private readonly maxSteps: number;
  private readonly maxLength: number;

  constructor(env: Environment, limits: { maxSteps: number; maxLength: number }) {
    super(env);
    this.maxSteps = limits.maxSteps;
    this.maxLength = limits.maxLength;
    // Loops and `if`s render their bodies through renderBlock, which writes
    // text and nested blocks without going through evaluate: count there too.
    const renderBlock = this.renderBlock.bind(this);
    this.renderBlock = (statements, env) => {
      this.tick(statements.length);
      return this.checked(renderBlock(statements, env));
    };
  }

  private tick(count: number): void {
    this.steps += count;
    if (this.steps > this.maxSteps)
      throw new RenderLimitExceeded(`the template took more than ${this.maxSteps} steps to render`);
  }

  private checked<T extends string | RuntimeValue>(value: T): T {
    const text = typeof value === 'string' ? value : value.value;
    if (typeof text === 'string' && text.length > this.maxLength)
      throw new RenderLimitExceeded(`the template produced a string longer than ${this.maxLength} characters`);
    return value;
  }

  override evaluate(node: AstNode, env: Environment): RuntimeValue {
    this.tick(1);
    if (node?.computedValue !== undefined) return node.computedValue;
    if (node?.type === 'TupleLiteral') return asList(super.evaluate(node, env));
    return this.checked(this.listMethod(node, env) ?? this.pythonOperator(node, env) ?? super.evaluate(node, env));
  }

  /**
   * Python operators the interpreter lacks and templates use: `' ' * 4`
   * (string repetition, for indentation) and `none in [...]` (a missing
   * `schema.get("format")` tested against a list). Other operations go to
   * the interpreter with their operands already evaluated (each once).
   */
  private pythonOperator(node: AstNode, env: Environment): RuntimeValue | undefined {
    if (node?.type !== 'BinaryExpression') return undefined;
    const operator = node.operator?.value;
    if (operator !== '*' && operator !== 'in' && operator !== 'not in') return undefined;
    const left = this.evaluate(node.left, env);
    const right = this.evaluate(node.right, env);
    if (operator !== '*') {
      if (left.type !== 'NullValue' || !Array.isArray(right.value))
        return super.evaluate({ ...node, left: computed(left), right: computed(right) }, env);
      const items: RuntimeValue[] = right.value;
      const found = items.some((item) => item.type === 'NullValue');
      const BooleanValue = env.lookupVariable('true').constructor;
      return new BooleanValue(operator === 'in' ? found : !found);
    }
    const [text, count] = left.type === 'StringValue' ? [left, right] : [right, left];
    if (
      text.type === 'StringValue' &&
      count.type === 'IntegerValue' &&
      typeof text.value === 'string' &&
      typeof count.value === 'number'
    ) {
      const times = Math.max(0, count.value);
      if (text.value.length * times > this.maxLength)
        throw new RenderLimitExceeded(`the template produced a string longer than ${this.maxLength} characters`);
      const StringValue = text.constructor;
      return new StringValue(text.value.repeat(times));
    }
    return super.evaluate({ ...node, left: computed(left), right: computed(right) }, env);
  }

  /**
   * `list.append(x)`, `list.pop()`, `list.extend(xs)`: Python list methods
   * that many chat templates use and the interpreter lacks.
   */
  private listMethod(node: AstNode, env: Environment): RuntimeValue | undefined {
    if (node?.type !== 'CallExpression') return undefined;
    const callee = node.callee;
    if (callee?.type !== 'MemberExpression' || callee.computed === true || callee.property?.type !== 'Identifier')
      return undefined;
    const method = callee.property.value;
    if (typeof method !== 'string' || !LIST_METHODS.has(method)) return undefined;
    const target = super.evaluate(callee.object, env);
    if (target.type !== 'ArrayValue' || !Array.isArray(target.value)) return undefined;
    const items: RuntimeValue[] = target.value;
    const values = (node.args ?? []).map((a) => super.evaluate(a, env));
    const none = env.lookupVariable('none');
    const [first] = values;
    if (method === 'append' && first !== undefined) items.push(first);
    else if (method === 'extend' && first !== undefined && Array.isArray(first.value)) items.push(...first.value);
    else if (method === 'pop') {
      const at = typeof first?.value === 'number' ? first.value : items.length - 1;
      const [removed] = items.splice(at < 0 ? items.length + at : at, 1);
      return removed ?? none;
    }
    return none;
  }
}

const LIST_METHODS = new Set(['append', 'extend', 'pop']);

/** A node standing for a value already evaluated. */
const COMPUTED = 'ComputedValue';
function computed(value: RuntimeValue): AstNode {
  return { type: COMPUTED, computedValue: value };
}

/**
 * A tuple `(k, v)` as a list: the interpreter unpacks only lists in
 * `for k, v in pairs`, where Python unpacks tuples too.
 */
function asList(value: RuntimeValue): RuntimeValue {
  if (value.type !== 'TupleValue') return value;
  // A tuple's class extends the list class.
  const ListValue: RuntimeValueClass = Object.getPrototypeOf(value.constructor);
  return new ListValue(value.value);
}

function cappedRange(start: number, stop?: number, step = 1): number[] {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (step === 0) throw new Error('range() step must not be zero');
  const count = Math.max(0, Math.ceil((to - from) / step));
  if (!Number.isFinite(count) || count > DEFAULT_MAX_RANGE)
    throw new RenderLimitExceeded(`the template asked for range() of ${count} items`);
  const out: number[] = [];
  for (let i = 0; i < count; i += 1) out.push(from + i * step);
  return out;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const MONTHS_SHORT = MONTHS.map((m) => m.slice(0, 3));
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** A fixed date, so two renders of one template never differ by the clock. */
function fixedStrftime(format: string): string {
  const date = new Date(Date.UTC(2025, 0, 15, 12, 0, 0));
  const pad = (n: number): string => String(n).padStart(2, '0');
  const codes: Record<string, string> = {
    d: pad(date.getUTCDate()),
    m: pad(date.getUTCMonth() + 1),
    Y: String(date.getUTCFullYear()),
    y: pad(date.getUTCFullYear() % 100),
    B: MONTHS[date.getUTCMonth()] ?? '',
    b: MONTHS_SHORT[date.getUTCMonth()] ?? '',
    A: DAYS[date.getUTCDay()] ?? '',
    a: (DAYS[date.getUTCDay()] ?? '').slice(0, 3),
    H: pad(date.getUTCHours()),
    M: pad(date.getUTCMinutes()),
    S: pad(date.getUTCSeconds()),
    '%': '%',
  };
  return format.replace(/%([a-zA-Z%])/g, (all, code: string) => codes[code] ?? all);
}

/**
 * A parsed template, opaque: the interpreter's own types stay out of the
 * package's declarations (its .d.ts files do not compile under
 * `moduleResolution: nodenext`, which users' strict projects use).
 */
export interface ParsedTemplate {
  readonly parsedTemplate: true;
}

/** What compileTemplate hands out: the parsed program, behind the opaque ParsedTemplate. */
class CompiledProgram implements ParsedTemplate {
  readonly parsedTemplate = true;
  readonly program: unknown;

  constructor(program: unknown) {
    this.program = program;
  }
}

/** A parsed template, or why it could not be parsed. */
export type CompiledTemplate = { ok: true; template: ParsedTemplate } | { ok: false; reason: string };

export function compileTemplate(source: string): CompiledTemplate {
  if (source.length > DEFAULT_MAX_TEMPLATE_LENGTH)
    return {
      ok: false,
      reason: `the template is ${source.length} characters long; at most ${DEFAULT_MAX_TEMPLATE_LENGTH} are read`,
    };
  if (source.trim() === '') return { ok: false, reason: 'the template is empty' };
  try {
    const parsed: unknown = new Template(source).parsed;
    return { ok: true, template: new CompiledProgram(parsed) };
  } catch (error) {
    return { ok: false, reason: `the template does not parse as Jinja: ${errorText(error)}` };
  }
}

function errorText(error: unknown): string {
  return error instanceof RangeError ? 'it recursed too deeply' : describeError(error);
}

/** Renders with the variables a chat template expects; never throws. */
export function renderTemplate(
  parsed: ParsedTemplate,
  variables: Record<string, unknown>,
  limits: RenderLimits = {},
): RenderResult {
  if (!(parsed instanceof CompiledProgram))
    return { ok: false, reason: 'the template was not compiled by compileTemplate' };
  const env = new Environment();
  const globals: Record<string, unknown> = {
    false: false,
    true: true,
    none: null,
    False: false,
    True: true,
    None: null,
    range: cappedRange,
    strftime_now: fixedStrftime,
    raise_exception: (message: unknown) => {
      throw new TemplateRaised(String(message));
    },
  };
  try {
    for (const [key, value] of Object.entries({ ...globals, ...variables })) env.set(key, value);
    const interpreter = new GuardedInterpreter(env, {
      maxSteps: limits.maxSteps ?? DEFAULT_MAX_RENDER_STEPS,
      maxLength: limits.maxRenderLength ?? DEFAULT_MAX_RENDER_LENGTH,
    });
    const result = interpreter.run(parsed.program);
    const text = typeof result.value === 'string' ? result.value : '';
    return { ok: true, text };
  } catch (error) {
    if (error instanceof TemplateRaised) return { ok: false, reason: `the template raised an error: ${error.message}` };
    if (error instanceof RenderLimitExceeded) return { ok: false, reason: `rendering was stopped: ${error.message}` };
    return { ok: false, reason: `the template failed to render: ${errorText(error)}` };
  }
}
