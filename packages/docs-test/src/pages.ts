import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractBlocks, type CodeBlock } from './extract-blocks.js';

/**
 * The pages whose every sh and ts block must carry a docs-test marker (one that runs it, or one that
 * skips it with a reason), so a block added without one fails the docs test instead of going untested.
 * The other pages under docs/ may mark some blocks (docs/cli.md marks its ten-minute start).
 */
export const FULLY_MARKED: readonly string[] = [
  'README.md',
  'docs/getting-started.md',
  'docs/recipes.md',
  'docs/write-your-own-harness.md',
  'docs/mcp.md',
  'docs/dashboard.md',
  'docs/hosts.md',
];

/**
 * The order pages run in: these first (a later page may build on an earlier one's files), then the rest of docs/ by
 * name.
 */
const FIRST = ['README.md', 'docs/getting-started.md', 'docs/cli.md', 'docs/dashboard.md'];

/**
 * README.md and every docs/*.md of a repository (docs/api/ is generated and not read), in run
 * order, with their code blocks.
 *
 * @param root the repository root (absolute)
 * @throws Error naming `file:line` for a malformed marker (see `extractBlocks`)
 */
export function readPages(root: string): { file: string; blocks: CodeBlock[] }[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const files = [
    ...FIRST.filter((f) => f === 'README.md' || docs.includes(f)),
    ...docs.filter((f) => !FIRST.includes(f)).sort(),
  ];
  return files.map((file) => ({ file, blocks: extractBlocks(file, readFileSync(join(root, file), 'utf8')) }));
}

/** The sh and ts blocks of the {@link FULLY_MARKED} pages that carry no marker, as `file:line` strings. */
export function unmarkedBlocks(pages: readonly { file: string; blocks: readonly CodeBlock[] }[]): string[] {
  return pages
    .filter((p) => FULLY_MARKED.includes(p.file))
    .flatMap((p) =>
      p.blocks.filter((b) => (b.lang === 'sh' || b.lang === 'ts') && !b.options).map((b) => `${b.file}:${b.line}`),
    );
}
