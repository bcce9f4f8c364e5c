// The names an entry file exports, read from its syntax: an entry is explicit named
// exports only (`export { a, type B } from '…'`), so its text is its whole public list.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

export interface EntryExports {
  readonly values: readonly string[];
  readonly types: readonly string[];
  /** Statements that are not explicit named re-exports (`export *`, local declarations): an entry has none. */
  readonly other: readonly string[];
}

export function entryExports(file: string): EntryExports {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const values: string[] = [];
  const types: string[] = [];
  const other: string[] = [];
  for (const statement of source.statements) {
    if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause !== undefined &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) {
        (statement.isTypeOnly || element.isTypeOnly ? types : values).push(element.name.text);
      }
    } else {
      other.push(statement.getText(source).split('\n')[0] ?? '');
    }
  }
  return { values: values.sort(), types: types.sort(), other };
}
