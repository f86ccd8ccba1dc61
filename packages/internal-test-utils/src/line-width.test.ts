import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 30: no line of code over 120 characters. Prettier (printWidth 120) cannot wrap a string, a template or a
// comment; scripts/wrap-long-lines.mjs does, then Prettier again.
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const WIDTH = 120;

describe('line width', () => {
  it('no line of code in packages/ and examples/ is over 120 characters (templates and ten-lines.ts aside)', () => {
    const files = execFileSync(
      'git',
      ['ls-files', 'packages/*.ts', 'packages/*.mts', 'examples/*.ts', 'scripts/*.mjs'],
      {
        cwd: repo,
        encoding: 'utf8',
      },
    )
      .split('\n')
      .filter((f) => f !== '' && !f.includes('/template/') && !f.endsWith('ten-lines.ts'));
    expect(files.length).toBeGreaterThan(100);
    const long: string[] = [];
    for (const file of files) {
      readFileSync(join(repo, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if ([...line].length > WIDTH) long.push(`${file}:${i + 1} (${[...line].length} characters)`);
        });
    }
    expect(long).toEqual([]);
  });
});
