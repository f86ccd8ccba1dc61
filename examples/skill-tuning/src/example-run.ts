import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@loop/cli';
import { parseDocument } from 'yaml';

/** What one run of an example produced. */
export interface ExampleRun {
  /** The temporary repository the example was copied into. */
  readonly dir: string;
  /** The exit code of `loop run`. */
  readonly code: number;
  /** Everything `loop run` printed. */
  readonly output: string;
  /** git in that repository. */
  readonly git: (...args: string[]) => string;
}

/**
 * Copies an example folder into a new git repository (one commit on `main`), points its config's
 * agent at the example's scripted agent (no sandbox: it writes only its target), and runs
 * `loop run` there in process. The real CLI, the real evaluator, real git.
 */
export async function runExample(exampleDir: string, files: readonly string[]): Promise<ExampleRun> {
  const dir = mkdtempSync(join(tmpdir(), 'loop-example-'));
  for (const f of files) cpSync(join(exampleDir, f), join(dir, f), { recursive: true });
  const doc = parseDocument(readFileSync(join(dir, 'loop.config.yaml'), 'utf8'));
  doc.setIn(['proposer', 'command'], `node ${join(dir, 'scripted-agent.mjs')}`);
  doc.setIn(['proposer', 'sandbox'], 'none');
  writeFileSync(join(dir, 'loop.config.yaml'), doc.toString());
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=example', '-c', 'user.email=example@example', ...args], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-qm', 'example');
  const out: string[] = [];
  const sink = { write: (s: string) => (out.push(s), true) } as unknown as NodeJS.WritableStream;
  const code = await runCli(['run'], { stdout: sink, stderr: sink, cwd: dir, tty: false });
  return { dir, code, output: out.join(''), git };
}
