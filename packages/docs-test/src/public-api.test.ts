// The public names of @loop/docs-test: adding or removing one is a deliberate change (issue 30).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { undocumentedExports } from '@loop/internal-test-utils';

describe('@loop/docs-test public entries', () => {
  it('@loop/docs-test: the entry exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(fileURLToPath(new URL('./index.ts', import.meta.url)));
    expect([...exports].sort()).toEqual([
      'BlockOptions',
      'BlockResult',
      'BlockRunContext',
      'CodeBlock',
      'FULLY_MARKED',
      'FreshClone',
      'FreshCloneOptions',
      'TypecheckResult',
      'applyReplacements',
      'cleanEnvironment',
      'extractBlocks',
      'formatFailure',
      'freshClone',
      'markedBlocks',
      'parseMarker',
      'pasteHazards',
      'readPages',
      'runBlock',
      'typecheckBlocks',
      'unmarkedBlocks',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
});
