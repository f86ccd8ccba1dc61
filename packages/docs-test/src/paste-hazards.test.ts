import { expect, it } from 'vitest';
import { pasteHazards } from './paste-hazards.js';

it('finds a bare pnpm command in a sh block or a code span and npx loop in a sh block, by file:line', () => {
  const page = [
    'Run `pnpm demo --keep noise-aware` or `npx -y pnpm@12.4.2 demo`.', // 1
    '', //                                                               2
    '```sh', //                                                          3
    'npx -y pnpm@12.4.2 install', //                                     4
    'CI=1 pnpm test', //                                                 5
    'npx loop run', //                                                   6
    'npx --no-install loop run', //                                      7
    '```', //                                                            8
    'never a bare `npx loop` (prose about it is fine)', //               9
    '',
  ].join('\n');
  expect(pasteHazards('docs/p.md', page)).toEqual([
    'docs/p.md:5: bare `pnpm` (no global pnpm): use `npx -y pnpm@12.4.2 test`',
    'docs/p.md:6: `npx loop` runs the unrelated npm package loop: see docs/cli.md#ten-minute-start',
    'docs/p.md:1: bare `pnpm demo --keep noise-aware` (no global pnpm): use ' +
      '`npx -y pnpm@12.4.2 demo --keep noise-aware`',
  ]);
});
