import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readPages, unmarkedBlocks } from './pages.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'docs-test-pages-'));
  await mkdir(join(root, 'docs'));
  await writeFile(
    join(root, 'README.md'),
    '<!-- docs-test -->\n```sh\ntrue\n```\n\n```ts\nconst unmarked = 1;\n```\n```yaml\na: 1\n```\n',
  );
  await writeFile(join(root, 'docs', 'zeta.md'), '```sh\nunmarked on a page that need not be fully marked\n```\n');
  await writeFile(join(root, 'docs', 'cli.md'), '```sh\nloop --help\n```\n');
  await writeFile(
    join(root, 'docs', 'recipes.md'),
    '<!-- docs-test: {"skip": "needs claude"} -->\n```sh\nclaude\n```\n',
  );
});
afterAll(() => rm(root, { recursive: true, force: true }));

it('reads README.md first, then getting-started, cli and dashboard, then the rest of docs/ by name', () => {
  expect(readPages(root).map((p) => p.file)).toEqual(['README.md', 'docs/cli.md', 'docs/recipes.md', 'docs/zeta.md']);
});

it('an unmarked sh or ts block on a fully marked page is reported by file:line; a skip marker counts as marked', () => {
  expect(unmarkedBlocks(readPages(root))).toEqual(['README.md:6']);
});
