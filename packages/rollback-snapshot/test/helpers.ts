import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A real temporary workspace. */
export interface TempWorkspace {
  readonly dir: string;
  /** The run directory `.aid/pipeline/autoresearch/T-1`. */
  readonly runDir: string;
  write(path: string, content: string, mtimeMs?: number): void;
  read(path: string): string;
  git(...args: string[]): string;
  cleanup(): void;
}

const identity = ['-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false'];

/** A temp directory holding `files`; with `git: true` they are committed first on `main`. */
export function makeWorkspace(files: Record<string, string>, opts: { git?: boolean } = {}): TempWorkspace {
  const dir = mkdtempSync(join(tmpdir(), 'loop-rollback-snapshot-'));
  const git = (...args: string[]) =>
    execFileSync('git', [...identity, ...args], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trimEnd();
  const write = (path: string, content: string, mtimeMs?: number) => {
    const abs = join(dir, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    if (mtimeMs !== undefined) utimesSync(abs, new Date(mtimeMs), new Date(mtimeMs));
  };
  for (const [p, c] of Object.entries(files)) write(p, c);
  if (opts.git) {
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'initial');
  }
  return {
    dir,
    runDir: join(dir, '.aid/pipeline/autoresearch/T-1'),
    write,
    read: (p) => readFileSync(join(dir, p), 'utf8'),
    git,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A clock that advances one second per call, from 2026-11-30T04:00:00Z. */
export function steppingClock(startMs = Date.UTC(2026, 10, 30, 4, 0, 0)) {
  let t = startMs - 1000;
  return { now: () => (t += 1000) };
}
