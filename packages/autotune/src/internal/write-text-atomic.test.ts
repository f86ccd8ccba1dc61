import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { writeTextAtomic } from '@loop/core/files';
import { upsertSection } from './sections.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-autotune-atomic-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('atomic text write replaces the file through a temp file and sets mode 0644', async () => {
  const path = join(dir, 'changelog.md');
  writeFileSync(path, 'old', { mode: 0o600 });
  await writeTextAtomic(path, 'new\n');
  expect(readFileSync(path, 'utf8')).toBe('new\n');
  expect(statSync(path).mode & 0o777).toBe(0o644);
  expect(readdirSync(dir)).toEqual(['changelog.md']);
});

it(
  'a failed atomic text write throws STATE_WRITE_FAILED naming the path, ' +
    'keeps what was there and leaves no temp file',
  async () => {
    const path = join(dir, 'issues.md');
    mkdirSync(path);
    writeFileSync(join(path, 'keep'), 'x');
    await expect(writeTextAtomic(path, 'text')).rejects.toMatchObject({
      code: 'STATE_WRITE_FAILED',
      message: expect.stringContaining(path),
    });
    expect(readdirSync(dir)).toEqual(['issues.md']);
    expect(readFileSync(join(path, 'keep'), 'utf8')).toBe('x');
  },
);

it('upsertSection appends a new round section and replaces an existing one in place', () => {
  const one = upsertSection('# log\n', '## Round 1', '## Round 1\n\n- a\n');
  expect(one).toBe('# log\n\n## Round 1\n\n- a\n');
  const two = upsertSection(one, '## Round 2', '## Round 2\n\n- b\n');
  expect(upsertSection(two, '## Round 1', '## Round 1\n\n- a2\n')).toBe(
    '# log\n\n## Round 1\n\n- a2\n\n## Round 2\n\n- b\n',
  );
});
