import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseFrontmatter } from './frontmatter.js';
import { UnparseableTargetError } from './evaluation.js';

/** Index file names, in the order the memory evaluator looks for them at the store's root. */
export const INDEX_NAMES: readonly string[] = ['MEMORY.md', 'INDEX.md', 'index.md'];

/** One memory file. */
export interface MemoryFile {
  /** Relative to the store, `/`-separated. */
  readonly path: string;
  /** The whole text. */
  readonly text: string;
  /** The text without its frontmatter. */
  readonly body: string;
  /** The frontmatter fields (`{}` when there is none or it is not valid YAML). */
  readonly data: Record<string, unknown>;
  /** Whether the frontmatter was invalid YAML. */
  readonly badFrontmatter: boolean;
}

/** A memory folder read into memory. */
export interface MemoryStore {
  /** Absolute path of the store (the folder, or its agent's subfolder). */
  readonly root: string;
  /** The index file, relative to the store, when there is one. */
  readonly index?: MemoryFile;
  /** Every other `*.md` file, sorted by path. */
  readonly files: readonly MemoryFile[];
}

async function walk(root: string, rel: string, out: string[]): Promise<void> {
  const entries = await readdir(join(root, rel), { withFileTypes: true });
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) await walk(root, path, out);
    else if (e.isFile() && e.name.endsWith('.md')) out.push(path);
  }
}

async function readMemoryFile(root: string, path: string): Promise<MemoryFile> {
  const text = await readFile(join(root, path), 'utf8');
  try {
    const { data, body } = parseFrontmatter(text);
    return { path, text, body, data: data ?? {}, badFrontmatter: false };
  } catch {
    return { path, text, body: text, data: {}, badFrontmatter: true };
  }
}

/**
 * Reads every `*.md` file of a memory folder (skipping dot folders and `node_modules`), with
 * `MEMORY.md`, `INDEX.md` or `index.md` at its root as the index.
 *
 * @throws {UnparseableTargetError} `TARGET_UNPARSEABLE` when `root` is not a readable folder.
 */
export async function readMemoryStore(root: string): Promise<MemoryStore> {
  const paths: string[] = [];
  await walk(root, '', paths).catch((error: NodeJS.ErrnoException) => {
    throw new UnparseableTargetError(`cannot read the memory folder ${root}: ${error.code ?? error.message}`);
  });
  const indexPath = INDEX_NAMES.find((n) => paths.includes(n));
  const files: MemoryFile[] = [];
  let index: MemoryFile | undefined;
  for (const p of paths) {
    const f = await readMemoryFile(root, p);
    if (p === indexPath) index = f;
    else files.push(f);
  }
  return { root, ...(index ? { index } : {}), files };
}
