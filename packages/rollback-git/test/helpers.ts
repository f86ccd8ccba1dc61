import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A file for {@link makeRepo}: content, or content plus executable bit. */
export type FileSpec = string | { content: string; executable?: boolean };

/** A real temporary git repository, created and committed with the git CLI. */
export interface TempRepo {
  readonly dir: string;
  /** Runs the git CLI in the repo (never while isomorphic-git writes it) and returns trimmed stdout. */
  git(...args: string[]): string;
  write(path: string, content: string, executable?: boolean): void;
  read(path: string): string;
  exists(path: string): boolean;
  isExecutable(path: string): boolean;
  remove(path: string): void;
  cleanup(): void;
}

const identity = ['-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false'];

/** Creates a repository on branch `main` whose first commit holds `files`. */
export function makeRepo(files: Record<string, FileSpec>, prefix = 'loop-rollback-git-'): TempRepo {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const git = (...args: string[]): string =>
    execFileSync('git', [...identity, ...args], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trimEnd();
  const write = (path: string, content: string, executable = false): void => {
    const abs = join(dir, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    chmodSync(abs, executable ? 0o755 : 0o644);
  };
  git('init', '-q', '-b', 'main');
  for (const [path, spec] of Object.entries(files)) {
    if (typeof spec === 'string') write(path, spec);
    else write(path, spec.content, spec.executable);
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return {
    dir,
    git,
    write,
    read: (path) => readFileSync(join(dir, path), 'utf8'),
    exists: (path) => existsSync(join(dir, path)),
    isExecutable: (path) => (statSync(join(dir, path)).mode & 0o111) !== 0,
    remove: (path) => rmSync(join(dir, path), { recursive: true, force: true }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A clock that advances one minute per call, so commit ids are reproducible. */
export function steppingClock(startMs = Date.UTC(2025, 10, 30, 3, 0, 0)): { now: () => number } {
  let t = startMs;
  return { now: () => (t += 60_000) };
}

/**
 * Settings a test file reads when it builds a rollback: `watch` is the rollback's `watch` option,
 * so watch-on.test.ts can run the same tests with the change journal on (issue 31);
 * `deferStagingAt` its option of that name, so deferred-staging-on.test.ts can run them with the
 * staging of every candidate deferred to its keep.
 */
export const testSettings: { watch: boolean; deferStagingAt: number | undefined } = {
  watch: false,
  deferStagingAt: undefined,
};

/** The rollback options {@link testSettings} stands for. */
export function testOptions(): { watch: boolean; deferStagingAt?: number } {
  const { watch, deferStagingAt } = testSettings;
  return deferStagingAt === undefined ? { watch } : { watch, deferStagingAt };
}
