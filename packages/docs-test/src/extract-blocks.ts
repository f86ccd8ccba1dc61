import { parseMarker, type BlockOptions } from './marker.js';

/** The languages a marked block may have: shell (`sh`, `bash`, `shell`) and TypeScript (`ts`, `typescript`). */
export type BlockLanguage = 'sh' | 'ts';

/** One fenced code block of a markdown page. */
export interface CodeBlock {
  /** The page, as given to {@link extractBlocks} (a path relative to the repository root, e.g. `docs/cli.md`). */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's language, normalised (`bash` is `sh`); the info string's first word otherwise, `''` when none. */
  lang: BlockLanguage | string;
  /** The block's text, without the fences, ending in a newline when not empty. */
  code: string;
  /** The marker's options when the line before the fence is a docs-test marker; `undefined` when unmarked. */
  options?: BlockOptions;
}

const LANGS: Record<string, BlockLanguage> = { sh: 'sh', bash: 'sh', shell: 'sh', ts: 'ts', typescript: 'ts' };
const FENCE = /^(\s{0,3})(`{3,}|~{3,})\s*([^`\s]*)?.*$/;

/**
 * Every fenced code block of a markdown page, in order, each with the marker before it (if any).
 *
 * @param file the page's name, used in the blocks and in errors (`docs/cli.md`)
 * @param text the page's markdown
 * @throws Error naming `file:line` when a marker is malformed, when a marker is not directly
 *   followed by a fence, when a marked fence is neither sh nor ts, or when a fence is never closed.
 */
export function extractBlocks(file: string, text: string): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  let pending: { options: BlockOptions; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const lineText = lines[i]!;
    let options: BlockOptions | undefined;
    try {
      options = parseMarker(lineText);
    } catch (error) {
      throw new Error(`${file}:${i + 1}: ${(error as Error).message}`);
    }
    if (options) {
      if (pending) throw new Error(`${file}:${pending.line}: docs-test marker is not followed by a code fence`);
      pending = { options, line: i + 1 };
      continue;
    }
    const fence = FENCE.exec(lineText);
    if (!fence) {
      if (pending) throw new Error(`${file}:${pending.line}: docs-test marker is not followed by a code fence`);
      continue;
    }
    const [, , marks, info = ''] = fence;
    const close = new RegExp(`^\\s{0,3}${marks![0] === '`' ? '`' : '~'}{${marks!.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end]!)) end++;
    if (end >= lines.length) throw new Error(`${file}:${i + 1}: code fence is never closed`);
    const body = lines.slice(i + 1, end);
    const lang = LANGS[info.toLowerCase()] ?? info.toLowerCase();
    if (pending && lang !== 'sh' && lang !== 'ts') {
      throw new Error(`${file}:${pending.line}: docs-test marker before a "${info}" fence; only sh and ts blocks run`);
    }
    blocks.push({
      file,
      line: i + 1,
      lang,
      code: body.length ? `${body.join('\n')}\n` : '',
      ...(pending ? { options: pending.options } : {}),
    });
    pending = undefined;
    i = end;
  }
  if (pending) throw new Error(`${file}:${pending.line}: docs-test marker is not followed by a code fence`);
  return blocks;
}

/** The marked blocks of a page (the ones {@link extractBlocks} found a marker for), in order. */
export function markedBlocks(file: string, text: string): (CodeBlock & { options: BlockOptions })[] {
  return extractBlocks(file, text).filter((b): b is CodeBlock & { options: BlockOptions } => b.options !== undefined);
}
