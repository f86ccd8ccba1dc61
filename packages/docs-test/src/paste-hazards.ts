import { extractBlocks } from './extract-blocks.js';

/** A command that starts with a bare `pnpm` (the README promises no global pnpm). */
const BARE_PNPM = /^(?:[A-Z_]+=\S*\s+)*pnpm\s/;
/** `npx loop` fetches the unrelated npm package `loop`; `npx --no-install loop` is the safe form. */
const NPX_LOOP = /(^|[\s;&|(])npx\s+(?:-y\s+|--yes\s+)?loop\b/;

/**
 * Lines a user would paste that fail or do harm whatever the marker says, found without running
 * anything, in every code block (marked or not) and inline code span of a page:
 * - a command starting with a bare `pnpm` (in a sh block or a code span): there is no global pnpm,
 *   the form is `npx -y pnpm@12.4.2 ...`;
 * - `npx loop` in a sh block: it downloads and runs the unrelated npm package `loop`.
 *
 * @returns `file:line: message` strings, empty when the page is clean
 * @throws Error from `extractBlocks` for a malformed marker
 */
export function pasteHazards(file: string, text: string): string[] {
  const hazards: string[] = [];
  const lines = text.split('\n');
  const inBlock = new Set<number>();
  for (const block of extractBlocks(file, text)) {
    const body = block.code.split('\n');
    for (let i = 0; i <= body.length + 1; i++) inBlock.add(block.line + i); // the fences and the body
    if (block.lang !== 'sh') continue;
    body.forEach((line, i) => {
      const command = line.trim();
      if (BARE_PNPM.test(command))
        hazards.push(
          `${file}:${block.line + 1 + i}: bare \`pnpm\` (no global pnpm): use ` +
            `\`npx -y pnpm@12.4.2 ${command.replace(/^.*?pnpm\s+/, '')}\``,
        );
      if (NPX_LOOP.test(command))
        hazards.push(
          `${file}:${block.line + 1 + i}: \`npx loop\` runs the unrelated npm ` +
            `package loop: see docs/cli.md#ten-minute-start`,
        );
    });
  }
  lines.forEach((line, i) => {
    if (inBlock.has(i + 1)) return;
    for (const span of line.matchAll(/`([^`]+)`/g)) {
      if (BARE_PNPM.test(span[1]!.trim()))
        hazards.push(
          `${file}:${i + 1}: bare \`${span[1]}\` (no global pnpm): use \`npx ` +
            `-y ${span[1]!.trim().replace(/^pnpm/, 'pnpm@12.4.2')}\``,
        );
    }
  });
  return hazards;
}
