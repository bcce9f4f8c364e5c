// Finds the files a built module loads by a path of its own at run time — paths a
// bundler neither follows nor renames: `createRequire(import.meta.url)(…)`,
// `require.resolve`, `new URL(…, import.meta.url)`, `import(<not a literal>)`, a
// Worker started from a file, `import.meta.dirname`/`filename` — and works out
// which paths each can ask for, so a test can check that they exist in the package.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export type LazyLoadKind = 'require' | 'require.resolve' | 'url' | 'import' | 'worker' | 'dirname';

export interface LazyLoad {
  file: string;
  /** 1-based. */
  line: number;
  kind: LazyLoadKind;
  /** The code of the load, for messages. */
  text: string;
  /**
   * Every specifier the argument can be: one, or several a loop tries in turn.
   * undefined: not known without running the code (a variable from elsewhere).
   */
  specifiers: string[] | undefined;
}

/** Every lazy load in one JavaScript file. */
export function findLazyLoads(file: string, source: string): LazyLoad[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const declared = new Map<string, ts.Node[]>();
  const collect = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
      const list = declared.get(node.name.text) ?? [];
      const loop = node.parent.parent;
      // `for (const x of [a, b])`: x is each element of the list in turn.
      list.push(
        ts.isForOfStatement(loop) && loop.initializer === node.parent ? loop.expression : (node.initializer ?? node),
      );
      declared.set(node.name.text, list);
    }
    ts.forEachChild(node, collect);
  };
  collect(sf);

  const isImportMeta = (node: ts.Node, name: string): boolean =>
    ts.isPropertyAccessExpression(node) &&
    node.name.text === name &&
    ts.isMetaProperty(node.expression) &&
    node.expression.keywordToken === ts.SyntaxKind.ImportKeyword;
  const isCreateRequire = (node: ts.Node): boolean =>
    ts.isCallExpression(node) &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'createRequire' &&
    node.arguments.some((a) => isImportMeta(a, 'url'));
  const isRequireFunction = (node: ts.Node): boolean =>
    isCreateRequire(node) ||
    (ts.isIdentifier(node) && (declared.get(node.text) ?? []).some((init) => isCreateRequire(init)));

  /** The strings an expression can be; undefined when that depends on more than this file says. */
  const values = (node: ts.Node, seen: Set<ts.Node> = new Set()): string[] | undefined => {
    if (seen.has(node)) return undefined;
    seen.add(node);
    if (ts.isParenthesizedExpression(node)) return values(node.expression, seen);
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
    if (ts.isArrayLiteralExpression(node)) return union(node.elements.map((e) => values(e, seen)));
    if (ts.isTemplateExpression(node)) {
      let out: string[] | undefined = [node.head.text];
      for (const span of node.templateSpans)
        out = product(out, product(values(span.expression, seen), [span.literal.text]));
      return out;
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken)
      return product(values(node.left, seen), values(node.right, seen));
    if (ts.isConditionalExpression(node)) {
      // The sources run as .ts and the build as .js: `import.meta.url.endsWith(".ts") ? … : …` is false in a build.
      if (isSourceCheck(node.condition)) return values(node.whenFalse, seen);
      return union([values(node.whenTrue, seen), values(node.whenFalse, seen)]);
    }
    if (ts.isIdentifier(node)) {
      const inits = declared.get(node.text);
      return inits === undefined ? undefined : union(inits.map((init) => values(init, seen)));
    }
    return undefined;
  };
  const isSourceCheck = (node: ts.Node): boolean =>
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    node.expression.name.text === 'endsWith' &&
    isImportMeta(node.expression.expression, 'url') &&
    node.arguments[0] !== undefined &&
    ts.isStringLiteral(node.arguments[0]) &&
    node.arguments[0].text === '.ts';

  const found: LazyLoad[] = [];
  const add = (node: ts.Node, kind: LazyLoadKind, argument: ts.Node | undefined): void => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    found.push({
      file,
      line,
      kind,
      text: node.getText(sf).slice(0, 160),
      specifiers: argument === undefined ? undefined : values(argument),
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const [first] = node.arguments;
      if (isRequireFunction(node.expression)) add(node, 'require', first);
      else if (
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'resolve' &&
        isRequireFunction(node.expression.expression)
      )
        add(node, 'require.resolve', first);
      else if (
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        first !== undefined &&
        !ts.isStringLiteral(first)
      )
        add(node, 'import', first);
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) {
      const [first, second] = node.arguments ?? [];
      if (node.expression.text === 'URL' && second !== undefined && isImportMeta(second, 'url'))
        add(node, 'url', first);
      if (/Worker/.test(node.expression.text) && !evaluatesSource(second)) add(node, 'worker', first);
    }
    if (isImportMeta(node, 'dirname') || isImportMeta(node, 'filename')) add(node, 'dirname', undefined);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** `{ eval: true }`: the Worker runs code given as a string, not a file. */
function evaluatesSource(options: ts.Node | undefined): boolean {
  return (
    options !== undefined &&
    ts.isObjectLiteralExpression(options) &&
    options.properties.some(
      (p) =>
        ts.isPropertyAssignment(p) && p.name.getText() === 'eval' && p.initializer.kind === ts.SyntaxKind.TrueKeyword,
    )
  );
}

function union(lists: (string[] | undefined)[]): string[] | undefined {
  if (lists.some((l) => l === undefined)) return undefined;
  return [...new Set(lists.flatMap((l) => l ?? []))];
}

function product(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  if (a === undefined || b === undefined) return undefined;
  return a.flatMap((x) => b.map((y) => x + y));
}

/**
 * Whether a specifier, asked for by `load`, finds a file: relative ones next to
 * the module, package names as Node's require finds them from there.
 */
export function resolves(load: LazyLoad, specifier: string): boolean {
  if (load.kind === 'require' || load.kind === 'require.resolve') {
    try {
      createRequire(resolve(load.file)).resolve(specifier);
      return true;
    } catch {
      return false;
    }
  }
  if (!/^\.{1,2}\//.test(specifier)) return false;
  return existsSync(fileURLToPath(new URL(specifier, pathToFileURL(resolve(load.file)))));
}
