// The demo's --help (examples/ml-tuning/src/main.ts): its usage line names every flag its list describes.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

describe('the demo --help', () => {
  it('the usage line names every flag the list below it describes', () => {
    const r = spawnSync(process.execPath, ['--import', TSX, '--conditions=source', MAIN, '--help'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    const [usage, ...rest] = r.stdout.split('\n\n');
    const listed = [...rest.join('\n').matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]);
    expect(listed.length).toBeGreaterThan(10);
    expect(listed.filter((flag) => !usage!.includes(`[${flag}`) && !usage!.includes(` ${flag} `))).toEqual([]);
  });
});
