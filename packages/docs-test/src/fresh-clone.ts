import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInGroupToLog } from '@loop/core/process';
import type { BlockRunContext } from './run-block.js';

/** The pnpm every step runs, as the README says (no global pnpm). */
export const PNPM = 'npx -y pnpm@12.4.2';
/** The scratch workspace package, relative to the clone's root, where ts blocks are saved. */
export const SCRATCH_PACKAGE = 'examples/docs-scratch';

/** A fresh clone ready for the blocks: {@link BlockRunContext} plus its clean-up. */
export interface FreshClone extends BlockRunContext {
  /** Removes the scratch folder (the clone is inside it). */
  dispose: () => Promise<void>;
}

/** Options of {@link freshClone}. */
export interface FreshCloneOptions {
  /** The repository to clone (its committed HEAD; uncommitted changes are not in the clone). */
  repo: string;
  /** The environment to start from. @default process.env, cleaned by {@link cleanEnvironment} */
  env?: NodeJS.ProcessEnv;
  /** The longest each setup step may take, in ms. @default 300_000 */
  stepTimeoutMs?: number;
}

/**
 * The environment a user's shell would have, from the test runner's: without vitest's and pnpm's
 * script variables (`VITEST*`, `NODE_OPTIONS`, `npm_lifecycle_*`, `npm_package_*`, `INIT_CWD`, ...),
 * `NODE_ENV=test`, and without `node_modules/.bin` folders on PATH (pnpm exec puts the source
 * repository's there, which would let a block call `tsx` no user has on PATH). Adds a git identity
 * (`GIT_AUTHOR_NAME`, `GIT_COMMITTER_EMAIL`, ...) where none is set, as a user's git has one.
 */
export function cleanEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (/^(VITEST|npm_lifecycle_|npm_package_|PNPM_SCRIPT_)/.test(key)) continue;
    if (['NODE_OPTIONS', 'INIT_CWD', 'TEST', 'npm_command', 'npm_execpath', 'npm_node_execpath'].includes(key))
      continue;
    if (key === 'NODE_ENV' && value === 'test') continue;
    out[key] = value;
  }
  out.PATH = (env.PATH ?? '')
    .split(':')
    .filter((p) => p && !p.includes('/node_modules/.bin'))
    .join(':');
  // A user's git has an identity; a CI container's root often has none, and the docs commit.
  for (const role of ['AUTHOR', 'COMMITTER'] as const) {
    out[`GIT_${role}_NAME`] ??= 'docs-test';
    out[`GIT_${role}_EMAIL`] ??= 'docs-test@localhost';
  }
  return out;
}

/**
 * Runs one setup command in its own process group.
 *
 * @throws Error naming the step, its exit and the last 30 lines of its output when it fails.
 */
async function step(
  label: string,
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  logPath: string,
  timeoutMs: number,
): Promise<void> {
  const run = await runInGroupToLog({ command, cwd, env, logPath, killTimeoutMs: timeoutMs, graceMs: 5_000 });
  if (run.exitCode === 0) return;
  const tail = (await readFile(logPath, 'utf8').catch(() => '')).trimEnd().split('\n').slice(-30).join('\n');
  throw new Error(
    `docs-test setup: ${label} ` +
      `(\`${command}\`) ${run.timedOut ? 'timed out' : `exited ${run.exitCode ?? run.signal}`}\n${tail}`,
  );
}

/**
 * Makes a fresh clone of `repo`'s committed HEAD in a new temporary folder and installs it the way
 * the README says (`npx -y pnpm@12.4.2 install --frozen-lockfile`, offline first since the store
 * is warm, then online). Then adds the scratch workspace package `examples/docs-scratch` that
 * depends (`workspace:*`) on every `@loop/*` package under `packages/`, so a ts block saved there
 * imports `@loop/core` as a file in any workspace package that depends on it does, and links it
 * (`pnpm install --offline --no-frozen-lockfile`). Last, a `loop` executable for blocks marked
 * `installed` (the clone's built CLI, `packages/cli/bin/loop.js`, which the install builds).
 *
 * @throws Error naming the failed setup step with its output tail (see {@link FreshCloneOptions}).
 */
export async function freshClone(options: FreshCloneOptions): Promise<FreshClone> {
  const env = cleanEnvironment(options.env ?? process.env);
  const timeoutMs = options.stepTimeoutMs ?? 300_000;
  const tmp = await mkdtemp(join(tmpdir(), 'loop-docs-test-'));
  const dispose = () => rm(tmp, { recursive: true, force: true });
  try {
    const root = join(tmp, 'repo');
    const log = (name: string) => join(tmp, 'logs', `setup-${name}.log`);
    await step('clone', `git clone -q '${options.repo}' '${root}'`, tmp, env, log('clone'), timeoutMs);
    await step(
      'install',
      `${PNPM} install --frozen-lockfile --offline || ${PNPM} install --frozen-lockfile`,
      root,
      env,
      log('install'),
      timeoutMs,
    );
    const dependencies: Record<string, string> = {};
    for (const dir of (await readdir(join(root, 'packages'))).sort()) {
      const manifest = await readFile(join(root, 'packages', dir, 'package.json'), 'utf8').catch(() => undefined);
      const name = manifest === undefined ? undefined : (JSON.parse(manifest) as { name?: string }).name;
      if (name?.startsWith('@loop/') && name !== '@loop/docs-test') dependencies[name] = 'workspace:*';
    }
    await mkdir(join(root, SCRATCH_PACKAGE), { recursive: true });
    const manifest = { name: '@loop/docs-scratch', private: true, type: 'module', dependencies };
    await writeFile(join(root, SCRATCH_PACKAGE, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await step(
      'link the scratch package',
      `${PNPM} install --offline --no-frozen-lockfile || ${PNPM} install --no-frozen-lockfile`,
      root,
      env,
      log('scratch'),
      timeoutMs,
    );
    const loopBinDir = join(tmp, 'bin');
    await mkdir(loopBinDir, { recursive: true });
    // The install built the CLI (the root prepare script): the bin a global install links.
    const bin = join(root, 'packages', 'cli', 'bin', 'loop.js');
    await writeFile(join(loopBinDir, 'loop'), `#!/bin/sh\nexec node '${bin}' "$@"\n`);
    await chmod(join(loopBinDir, 'loop'), 0o755);
    return { root, tmp, scratchPackage: SCRATCH_PACKAGE, env, loopBinDir, dispose };
  } catch (error) {
    if (!process.env.LOOP_DOCS_TEST_KEEP) await dispose();
    throw error;
  }
}
