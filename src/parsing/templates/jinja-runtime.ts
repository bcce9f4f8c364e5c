import { Environment as JinjaEnvironment, Interpreter as JinjaInterpreter } from '@huggingface/jinja';

// The package's .d.ts re-exports its runtime through an extensionless path
// that nodenext resolution does not follow, so its runtime classes, values and
// nodes arrive untyped (any): the little used here is typed by hand, below.

/** A runtime value; its class makes more of its kind (`new BooleanValue(true)`). */
export interface RuntimeValue {
  type: string;
  value: unknown;
  constructor: RuntimeValueClass;
}
export type RuntimeValueClass = new (value: unknown) => RuntimeValue;

/** A node of the template's syntax tree, with the fields read here (each present on the kinds that have it). */
interface SyntaxNode {
  type: string;
  /** BinaryExpression. */
  operator?: { value: string };
  left?: AstNode;
  right?: AstNode;
  /** CallExpression. */
  callee?: AstNode;
  args?: AstNode[];
  /** MemberExpression. */
  computed?: boolean;
  object?: AstNode;
  property?: AstNode;
  /** Identifier (and literals). */
  value?: unknown;
  /** A node made here for a value already evaluated (COMPUTED). */
  computedValue?: RuntimeValue;
}
export type AstNode = SyntaxNode | undefined;
export interface Environment {
  set(name: string, value: unknown): unknown;
  lookupVariable(name: string): RuntimeValue;
}
interface InterpreterShape {
  run(program: unknown): RuntimeValue;
  evaluate(node: AstNode, env: Environment): RuntimeValue;
  /** Private in the package: renders a block's statements (loops, `if`s) without going through evaluate. */
  renderBlock(statements: unknown[], env: Environment): string;
}
export const Environment: new () => Environment = JinjaEnvironment;
export const Interpreter: new (env: Environment) => InterpreterShape = JinjaInterpreter;
