import { parse } from 'yaml';
import { UnparseableTargetError } from './evaluation.js';

/** A markdown file split into its YAML frontmatter and its body. */
export interface Frontmatter {
  /** The parsed frontmatter mapping; `undefined` when the file has no `---` block. */
  readonly data: Record<string, unknown> | undefined;
  /** The text after the frontmatter (the whole text when there is none). */
  readonly body: string;
}

const BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Splits `text` into frontmatter and body. A file that opens a `---` block and never closes it,
 * or whose block is not valid YAML, or is YAML but not a mapping, is unparseable.
 *
 * @throws {UnparseableTargetError} `TARGET_UNPARSEABLE` naming the YAML error (seed 001: invalid
 *   yaml frontmatter is a crash row).
 */
export function parseFrontmatter(text: string): Frontmatter {
  if (!/^---[ \t]*\r?\n/.test(text)) return { data: undefined, body: text };
  const m = BLOCK.exec(text);
  if (!m) throw new UnparseableTargetError('the frontmatter opens with --- and is never closed');
  let data: unknown;
  try {
    data = parse(m[1] ?? '');
  } catch (error) {
    throw new UnparseableTargetError(`invalid YAML frontmatter: ${(error as Error).message.split('\n')[0]}`);
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw new UnparseableTargetError('the frontmatter is YAML but not a mapping of fields');
  return { data: data as Record<string, unknown>, body: text.slice(m[0].length) };
}
