import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);

describe('README ten lines', () => {
  it(
    'the shipped examples/custom-harness/ten-lines.ts is exactly the README ' +
      'block, so the README run line works as pasted',
    () => {
      const readme = readFileSync(new URL('README.md', root), 'utf8');
      const block =
        /<!-- docs-test: \{"file": "examples\/custom-harness\/ten-lines\.ts"[^\n]*-->\n```ts\n([\s\S]*?)```/.exec(
          readme,
        )?.[1];
      expect(block).toBeDefined();
      expect(readFileSync(new URL('examples/custom-harness/ten-lines.ts', root), 'utf8')).toBe(block);
    },
  );
});
