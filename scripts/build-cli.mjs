#!/usr/bin/env node
// The install step's build of the `loop` command (the root `prepare` script, run by
// `npx -y pnpm@12.4.2 install`; also `npx -y pnpm@12.4.2 build:cli`): the JavaScript of every
// package the CLI runs on, each package's tsup entries into its dist/, in one process and without
// type declarations (`npx -y pnpm@12.4.2 build` writes those too). Then `packages/cli/bin/loop.js`
// starts from plain JavaScript, without tsx compiling the sources at each call.
//
// A failure prints why and exits 0: the install and the tests (which run the sources) go on, and
// `loop` says it is not built until this succeeds.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
try {
  const { build } = await import('tsup');
  const jobs = [];
  for (const name of readdirSync(join(root, 'packages')).sort()) {
    const dir = join(root, 'packages', name);
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    // The entries of the package's own build script (`tsup src/index.ts src/main.ts --format ...`).
    const script = JSON.parse(readFileSync(manifest, 'utf8')).scripts?.build ?? '';
    const entries = /^tsup ((?:src\/\S+\.ts ?)+)/.exec(script)?.[1].trim().split(' ');
    if (!entries) continue;
    const out = join(dir, 'dist');
    // Earlier builds' JavaScript goes (chunk names change); the declarations of a full build stay.
    if (existsSync(out)) for (const f of readdirSync(out)) if (f.endsWith('.js')) rmSync(join(out, f));
    jobs.push(
      build({
        entry: entries.map((e) => join(dir, e)),
        outDir: out,
        format: ['esm'],
        platform: 'node',
        target: 'node20',
        splitting: true, // a command's modules are chunks loaded when it runs (lazy imports)
        skipNodeModulesBundle: true, // dependencies and the other @loop/* packages stay imports
        dts: false,
        clean: false,
        sourcemap: false,
        config: false,
        silent: true,
        tsconfig: join(dir, existsSync(join(dir, 'tsconfig.build.json')) ? 'tsconfig.build.json' : 'tsconfig.json'),
      }),
    );
  }
  await Promise.all(jobs);
  // The commit built, for bin/loop.js to say when the clone has moved on since (not in a tarball).
  try {
    const git = { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] };
    const head = execFileSync('git', ['rev-parse', 'HEAD'], git).trim();
    writeFileSync(join(root, 'packages', 'cli', 'dist', '.build-commit'), `${head}\n`);
  } catch {
    // not a git clone
  }
  const took = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`loop: built the loop command (${jobs.length} packages, ${took} s): node packages/cli/bin/loop.js`);
} catch (error) {
  const why = error instanceof Error ? error.message : String(error);
  console.error(`loop: the loop command was not built (${why}); the sources still run (npx -y pnpm@12.4.2 loop ...).`);
  console.error('Fix it, then: npx -y pnpm@12.4.2 build:cli');
}
