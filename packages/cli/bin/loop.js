#!/usr/bin/env node
// The `loop` command: the built CLI (dist/main.js). In a clone of the loop repository the install
// builds it (`npx -y pnpm@12.4.2 install`, the root `prepare` script; again: `npx -y pnpm@12.4.2 build:cli`).
import { existsSync, readFileSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  const how = 'in the clone\'s root run npx -y pnpm@12.4.2 install (or npx -y pnpm@12.4.2 build:cli)';
  process.stderr.write(`loop: the CLI is not built (no ${main.pathname}): ${how}\n`);
  process.exit(1);
}
// A clone's build records the commit it was built from: say so when the clone has moved on (a `git pull`
// with no dependency change does not run the install's build again).
const stamp = new URL('../dist/.build-commit', import.meta.url);
if (existsSync(stamp)) {
  try {
    const built = readFileSync(stamp, 'utf8').trim();
    const git = new URL('../../../.git/', import.meta.url);
    let head = readFileSync(new URL('HEAD', git), 'utf8').trim();
    if (head.startsWith('ref: ')) {
      const ref = head.slice(5);
      const loose = new URL(ref, git);
      const refs = () => readFileSync(new URL('packed-refs', git), 'utf8').split('\n');
      const packed = () => refs().find((l) => l.endsWith(` ${ref}`));
      head = existsSync(loose) ? readFileSync(loose, 'utf8').trim() : (packed() ?? '').split(' ')[0];
    }
    if (head && built && head !== built) {
      const where = `this CLI was built from commit ${built.slice(0, 7)}, the clone is at ${head.slice(0, 7)}`;
      process.stderr.write(`loop: ${where}: run npx -y pnpm@12.4.2 build:cli in the clone to rebuild it\n`);
    }
  } catch {
    // a worktree (.git is a file) or no git: no check
  }
}
await import(main.href);
