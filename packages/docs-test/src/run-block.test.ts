import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markedBlocks } from './extract-blocks.js';
import { cleanEnvironment } from './fresh-clone.js';
import { formatFailure, runBlock, type BlockRunContext } from './run-block.js';

// The repository root: its node_modules has tsx, so a ts block run from it starts as in a clone.
const repo = fileURLToPath(new URL('../../..', import.meta.url));

const fixture = [
  '# A page with a broken block', //                   1
  '', //                                               2
  '<!-- docs-test -->', //                             3
  '```sh', //                                          4
  'echo "first line ran"', //                          5
  'ls /no/such/folder | cat', //                       6
  'echo never', //                                     7
  '```', //                                            8
  '', //                                               9
  '<!-- docs-test: {"cwd": "tmp:page"} -->', //       10
  '```ts', //                                         11
  'const value = 41;', //                             12
  'if (value !== 42) throw new Error(`value is ${value}`);', // 13
  '```', //                                           14
  '<!-- docs-test: {"exit": 3, "expect": "bye"} -->', // 15
  '```sh', //                                         16
  'echo bye; exit 3', //                              17
  '```', //                                           18
  '<!-- docs-test: {"until": "listening on \\\\d+"} -->', // 19
  '```sh', //                                         20
  'echo "listening on 8377"; exec sleep 60', //       21
  '```', //                                           22
  '<!-- docs-test: {"replace": [["pnpm@12.4.2 demo\\n", ""]]} -->', // 23
  '```sh', //                                         24
  'npx -y pnpm@12.4.2 demo', //                       25
  'npx -y pnpm@12.4.2 test', //                       26
  '```', //                                           27
  '<!-- docs-test: {"cwd": "tmp:page"} -->', //       28
  '```sh', //                                         29
  'loop --help', //                                   30
  '```', //                                           31
  '',
].join('\n');

let tmp: string;
let ctx: BlockRunContext;
const blocks = markedBlocks('docs/fixture.md', fixture);

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'docs-test-unit-'));
  ctx = { root: repo, tmp, scratchPackage: join(tmp, 'scratch'), env: cleanEnvironment(process.env) };
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

describe('runBlock', () => {
  it(
    'a failing sh block names its page and fence line, the failing command ' +
      'by its markdown line, and the output tail',
    async () => {
      const result = await runBlock(blocks[0]!, ctx);
      expect(result.ok).toBe(false);
      const message = formatFailure(blocks[0]!, result);
      expect(message).toContain('docs/fixture.md:4 (sh block): exited 2, expected 0');
      // pipefail: the ls failed inside the pipe
      expect(message).toContain('failed at docs/fixture.md:6: exit 2: `cat`');
      expect(message).toContain('first line ran');
      expect(message).toContain('No such file or directory');
      expect(result.output).not.toContain('never');
    },
  );

  it('a failing ts block names its page and fence line and maps the stack frame to its markdown line', async () => {
    const result = await runBlock({ ...blocks[1]!, options: { ...blocks[1]!.options, cwd: repo } }, ctx);
    expect(result.ok).toBe(false);
    const message = formatFailure(blocks[1]!, result);
    expect(message).toContain('docs/fixture.md:11 (ts block): exited 1, expected 0');
    expect(message).toContain('failed at docs/fixture.md:13');
    expect(message).toContain('value is 41');
  });

  it('passes a block that ends with the exit code and output its marker expects', async () => {
    expect((await runBlock(blocks[2]!, ctx)).ok).toBe(true);
    const wrong = await runBlock({ ...blocks[2]!, options: { exit: 3, expect: 'hello' } }, ctx);
    expect(wrong.reason).toBe('its output does not contain "hello"');
  });

  it('a server block passes once its output matches "until", and its process group is stopped', async () => {
    const result = await runBlock(blocks[3]!, ctx);
    expect(result.ok).toBe(true);
    expect(result.durationMs).toBeLessThan(60_000);
  });

  it('refuses a block that would run the test suite inside itself (the README test line)', async () => {
    await expect(runBlock(blocks[4]!, ctx)).rejects.toThrow(
      'docs/fixture.md:24: the block would run the test suite inside itself',
    );
  });

  it(
    'puts no loop on PATH unless the block is marked installed, so a ' + 'from-clone block saying a bare loop fails',
    async () => {
      const result = await runBlock(blocks[5]!, ctx);
      expect(result.ok).toBe(false);
      expect(formatFailure(blocks[5]!, result)).toContain('failed at docs/fixture.md:30: exit 127: `loop --help`');
    },
  );
});
