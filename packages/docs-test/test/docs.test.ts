import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatFailure,
  freshClone,
  pasteHazards,
  readPages,
  runBlock,
  typecheckBlocks,
  unmarkedBlocks,
  type FreshClone,
} from '../src/index.js';

// The repository these docs belong to: the blocks are listed from its pages at collection time.
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const pages = readPages(repo);
// Pages edited but not committed are tested as edited (copied over the clone's); the code is HEAD's.
const edited = execFileSync('git', ['status', '--porcelain', '--', 'README.md', 'docs'], {
  cwd: repo,
  encoding: 'utf8',
})
  .split('\n')
  .map((l) => l.slice(3).trim())
  .filter((f) => pages.some((p) => p.file === f));

let clone: FreshClone | undefined;

beforeAll(async () => {
  clone = await freshClone({ repo });
  for (const file of edited) await copyFile(join(repo, file), join(clone.root, file));
}, 600_000);

afterAll(async () => {
  if (clone && !process.env.LOOP_DOCS_TEST_KEEP) await clone.dispose();
  else if (clone) console.log(`docs-test: kept ${clone.tmp}`);
});

it(
  'every sh and ts block of the fully marked pages carries a docs-test ' + 'marker (run it, or skip it with a reason)',
  () => {
    expect(unmarkedBlocks(pages)).toEqual([]);
  },
);

it(
  'no page of README.md and docs/ tells a user to run a bare pnpm (there ' +
    'is no global pnpm) or npx loop (the unrelated npm package)',
  () => {
    expect(pages.flatMap((p) => pasteHazards(p.file, readFileSync(join(repo, p.file), 'utf8')))).toEqual([]);
  },
);

for (const page of pages) {
  const marked = page.blocks.filter((b) => b.options);
  if (marked.length === 0) continue;
  describe(page.file, () => {
    for (const block of marked) {
      const title = `${block.file}:${block.line} (${block.lang}) runs as pasted from a fresh clone`;
      if (block.options!.skip) {
        it.skip(`${block.file}:${block.line} (${block.lang}) skipped: ${block.options!.skip}`, () => undefined);
        continue;
      }
      it(
        title,
        async () => {
          const result = await runBlock(block, clone!);
          if (!result.ok) expect.fail(formatFailure(block, result));
        },
        ((block.options!.timeoutS ?? 120) + 30) * 1000,
      );
    }
  });
}

// Last: tsx ran the ts blocks without checking their types; a user's editor does check them.
it("the ts blocks type-check as saved (strict, against the packages' sources)", async () => {
  const { errors, checked } = await typecheckBlocks(
    pages.flatMap((p) => p.blocks.filter((b) => b.options)),
    clone!,
  );
  expect(checked).toBeGreaterThan(0);
  expect(errors).toEqual([]);
}, 300_000);
