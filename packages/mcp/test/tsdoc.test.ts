// Every export of @loop/mcp has TSDoc (the API reference is generated from it).
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

it('every export of src/index.ts has a TSDoc comment', () => {
  const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    customConditions: ['source'],
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!);
  const undocumented = exports
    .filter((e) => {
      const s = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
      return ts.displayPartsToString(s.getDocumentationComment(checker)).trim() === '';
    })
    .map((e) => e.name);
  expect(exports.length).toBeGreaterThan(15);
  expect(undocumented).toEqual([]);
});
