/**
 * @loop/docs-test (private): runs the marked shell and TypeScript blocks of README.md and
 * docs/*.md from a fresh clone, so what users paste keeps working. A block is marked by an HTML
 * comment on the line before its fence (`<!-- docs-test -->`, or `<!-- docs-test: {json options} -->`);
 * see docs/docs-test.md for the options.
 *
 * @example
 * const clone = await freshClone({ repo: '/work/main' });
 * for (const block of markedBlocks('README.md', text)) {
 *   const result = await runBlock(block, clone);
 *   if (!result.ok) throw new Error(formatFailure(block, result));
 * }
 *
 * @packageDocumentation
 */
export { parseMarker, applyReplacements } from './marker.js';
export type { BlockOptions } from './marker.js';
export { extractBlocks, markedBlocks } from './extract-blocks.js';
export type { CodeBlock } from './extract-blocks.js';
export { runBlock, formatFailure } from './run-block.js';
export type { BlockRunContext, BlockResult } from './run-block.js';
export { typecheckBlocks } from './typecheck-blocks.js';
export type { TypecheckResult } from './typecheck-blocks.js';
export { freshClone, cleanEnvironment } from './fresh-clone.js';
export type { FreshClone, FreshCloneOptions } from './fresh-clone.js';
export { readPages, unmarkedBlocks, FULLY_MARKED } from './pages.js';
export { pasteHazards } from './paste-hazards.js';
