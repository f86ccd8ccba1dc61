import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { markedBlocks } from './extract-blocks.js';
import { cleanEnvironment } from './fresh-clone.js';
import { runBlock, type BlockRunContext } from './run-block.js';
import { typecheckBlocks } from './typecheck-blocks.js';

// The repository root stands in for the clone (its tsconfig.base.json, its tsc); the block files
// go to a folder inside this package so `@loop/core` and `@types/node` resolve as in the scratch package.
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const page = [
  '<!-- docs-test: {"prepend": "const limit = 3;"} -->', // 1
  '```ts', //                                               2
  "import { maxIterations } from '@loop/core';", //         3
  'const stop = maxIterations(limit);', //                  4
  'const wrong: string = stop.name.length;', //             5
  '```', //                                                 6
  '<!-- docs-test -->', //                                  7
  '```ts', //                                               8
  "import { createValueScorer } from '@loop/core';", //     9
  "console.log(createValueScorer('minimize').name);", //   10
  '```', //                                                11
  '',
].join('\n');

let tmp: string;
let ctx: BlockRunContext;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'docs-test-tsc-'));
  const scratch = await mkdtemp(join(repo, 'packages', 'docs-test', '.scratch-'));
  ctx = { root: repo, tmp, scratchPackage: scratch, env: cleanEnvironment(process.env) };
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
  await rm(ctx.scratchPackage, { recursive: true, force: true });
});

it(
  'a ts block that runs but does not type-check is reported at its ' +
    'markdown line (prepend lines discounted); a clean one is not',
  async () => {
    const blocks = markedBlocks('docs/fixture.md', page);
    for (const block of blocks) expect((await runBlock(block, ctx)).ok).toBe(true); // tsx strips the types: both run
    const { errors, checked } = await typecheckBlocks(blocks, ctx);
    expect(checked).toBe(2);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^docs\/fixture\.md:5: error TS2322: Type 'number' is not assignable to type 'string'/);
  },
  120_000,
);
