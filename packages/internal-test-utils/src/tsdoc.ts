import ts from 'typescript';

/**
 * The names of the exports of a package entry (`src/index.ts`, resolved with the `source`
 * condition) and those without a TSDoc comment, for the "every export is documented" tests.
 *
 * @param entry - the entry file's absolute path
 * @returns `{ exports, undocumented }`, both lists of export names
 */
export function undocumentedExports(entry: string): { exports: string[]; undocumented: string[] } {
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    customConditions: ['source'],
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const symbols = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!);
  const undocumented = symbols
    .filter((e) => {
      const s = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
      return ts.displayPartsToString(s.getDocumentationComment(checker)).trim() === '';
    })
    .map((e) => e.name);
  return { exports: symbols.map((e) => e.name), undocumented };
}
