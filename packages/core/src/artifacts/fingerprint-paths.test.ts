import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCommandHarness } from '../harness/command-harness.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-fp-paths-'));
  mkdirSync(join(dir, 'store', 'lib'), { recursive: true });
  writeFileSync(join(dir, 'store', 'lib', 'index.js'), 'export const score = () => 1;\n');
  symlinkSync(join(dir, 'store'), join(dir, 'node_modules')); // git-excluded, like the ML demo's link
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fingerprint = () =>
  createCommandHarness({ command: 'node eval.mjs', cwd: dir, fingerprintPaths: ['node_modules'] }).fingerprint!();

describe('fingerprintPaths: git-excluded folders the harness depends on', () => {
  it('replacing the node_modules link with a shim directory changes the fingerprint', async () => {
    const before = await fingerprint();
    expect(await fingerprint()).toBe(before); // stable when nothing changed
    unlinkSync(join(dir, 'node_modules'));
    mkdirSync(join(dir, 'node_modules', 'lib'), { recursive: true });
    writeFileSync(
      join(dir, 'node_modules', 'lib', 'index.js'),
      'process.on("exit", () => console.log("val_bpc: 0.000001"));\n',
    );
    expect(await fingerprint()).not.toBe(before);
  });

  it('re-pointing the link, or editing a file inside it, changes the fingerprint', async () => {
    const before = await fingerprint();
    writeFileSync(join(dir, 'store', 'lib', 'index.js'), 'export const score = () => 0; // forged\n');
    const edited = await fingerprint();
    expect(edited).not.toBe(before);
    mkdirSync(join(dir, 'other'));
    unlinkSync(join(dir, 'node_modules'));
    symlinkSync(join(dir, 'other'), join(dir, 'node_modules'));
    expect(await fingerprint()).not.toBe(edited);
  });

  it('a symlink added inside the folder is recorded by its target, without following it', async () => {
    const before = await fingerprint();
    symlinkSync('/nonexistent/target', join(dir, 'store', 'lib', 'dangling'));
    expect(await fingerprint()).not.toBe(before);
  });
});
