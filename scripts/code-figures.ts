// Style figures of the source tree, measured rather than guessed: type assertions,
// functions with more than three positional parameters, import circles (type-only
// imports included), lines over the formatter's width, and the orchestrator's floors.
// `node scripts/code-figures.ts [--json]`; test/architecture/code-figures.test.ts holds
// the limits.
import { globSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import ts from 'typescript';

/** The formatter's print width (.prettierrc.json). */
export const PRINT_WIDTH = 120;

export interface CodeFigures {
  readonly asCasts: number;
  readonly manyParams: readonly string[];
  readonly circles: readonly (readonly string[])[];
  readonly longLines: readonly string[];
  readonly orchestratorFiles: number;
  readonly orchestratorFloors: readonly string[];
  /** Each source file's relative imports, resolved to paths (type-only and dynamic imports included). */
  readonly imports: ReadonlyMap<string, readonly string[]>;
}

const isSource = (f: string): boolean => !f.endsWith('.test.ts') && !f.endsWith('.d.ts');

export function sourceFiles(root = '.'): string[] {
  return globSync('src/**/*.ts', { cwd: root }).filter(isSource).sort();
}

function parse(root: string, file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

function isConstAssertion(node: ts.AsExpression | ts.TypeAssertion): boolean {
  return ts.isTypeReferenceNode(node.type) && node.type.typeName.getText() === 'const';
}

/** Positional parameters, `this` not counted; a rest tuple (`...[a, b]: [A, B]`) counts its elements. */
function positional(params: ts.NodeArray<ts.ParameterDeclaration>): number {
  let count = 0;
  for (const p of params) {
    if (ts.isIdentifier(p.name) && p.name.text === 'this') continue;
    if (p.dotDotDotToken !== undefined && ts.isArrayBindingPattern(p.name)) count += p.name.elements.length;
    else count += 1;
  }
  return count;
}

function functionName(node: ts.SignatureDeclaration): string {
  return node.name !== undefined && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name))
    ? node.name.text
    : '(anonymous)';
}

function relativeImports(source: ts.SourceFile): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      out.push(node.moduleSpecifier.text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      out.push(node.argument.literal.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg !== undefined && ts.isStringLiteral(arg)) out.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out.filter((s) => s.startsWith('.'));
}

/** Strongly connected components of size > 1 (or a file importing itself), by Tarjan. */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    indices.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indices.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, indices.get(w) ?? 0));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) connect(v);
  return out;
}

export function measure(root = '.'): CodeFigures {
  const files = sourceFiles(root);
  let asCasts = 0;
  const manyParams: string[] = [];
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = parse(root, file);
    const visit = (node: ts.Node): void => {
      if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && !isConstAssertion(node)) asCasts += 1;
      if (ts.isFunctionLike(node) && 'body' in node && positional(node.parameters) > 3) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        manyParams.push(`${file}:${line + 1} ${functionName(node)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    graph.set(
      normalize(file),
      relativeImports(source).map((spec) => normalize(join(dirname(file), spec))),
    );
  }
  const widthFiles = globSync('{src,test,web,scripts,bench,examples,bin}/**/*.{ts,js,mjs}', { cwd: root }).filter(
    (f) =>
      !f.includes('node_modules') &&
      !f.startsWith(join('test', 'fixtures')) &&
      !f.startsWith(join('bench', 'results')) &&
      !f.includes(`${sep}anchors${sep}`) &&
      !f.includes(`${sep}.build${sep}`),
  );
  const longLines: string[] = [];
  for (const file of widthFiles.sort()) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.length > PRINT_WIDTH) longLines.push(`${file}:${i + 1}`);
      });
  }
  const orchestrator = files.filter((f) => f.startsWith(join('src', 'orchestrator') + sep));
  const floors = [...new Set(orchestrator.map((f) => relative(join('src', 'orchestrator'), dirname(f)) || '.'))].sort();
  return {
    asCasts,
    manyParams,
    circles: importCircles(graph),
    longLines,
    orchestratorFiles: orchestrator.length,
    orchestratorFloors: floors,
    imports: graph,
  };
}

if (import.meta.main) {
  const figures = measure();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ ...figures, imports: undefined }, null, 2));
  } else {
    console.log(`as casts (src, not as const): ${figures.asCasts}`);
    console.log(`functions with more than 3 positional parameters (src): ${figures.manyParams.length}`);
    console.log(`import circles (src, type-only imports included): ${figures.circles.length}`);
    for (const c of figures.circles) console.log(`  ${c.join(' ↔ ')}`);
    console.log(`lines over ${PRINT_WIDTH} characters: ${figures.longLines.length}`);
    console.log(
      `src/orchestrator: ${figures.orchestratorFiles} files on ` +
        `${figures.orchestratorFloors.length} floors (${figures.orchestratorFloors.join(', ')})`,
    );
  }
}
