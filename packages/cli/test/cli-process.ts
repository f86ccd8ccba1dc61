// The real `loop` CLI as a child process, from its TypeScript sources (node --import tsx
// --conditions=source src/main.ts), and the workspace pieces cli.test.ts builds on.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseDocument } from 'yaml';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/** How a `loop` process ended, and what it printed. */
export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts `loop <args>` in `root` (CI=1: plain output); `onStdout` sees the output so far (to send
 * Ctrl-C at the right moment).
 */
export function startLoop(
  root: string,
  args: string[],
  onStdout?: (soFar: string, kill: (signal: NodeJS.Signals) => void) => void,
): { result: Promise<Result>; kill: (signal: NodeJS.Signals) => void } {
  const child = spawn(process.execPath, ['--import', TSX, '--conditions=source', MAIN, ...args], {
    cwd: root,
    env: { ...process.env, CI: '1' },
  });
  const result = new Promise<Result>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += String(d);
      onStdout?.(stdout, (signal) => child.kill(signal));
    });
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
  return { result, kill: (signal) => child.kill(signal) };
}

// score = (x - 3)^2 + 1; SLEEP_MS slows each run down so a test can interrupt it. The run of
// iteration HANG_AT never ends and ignores SIGTERM (only SIGKILL stops it); it creates HANG_MARK first.
export const EVAL = `import { readFileSync, writeFileSync } from 'node:fs';
const { x } = JSON.parse(readFileSync('config.json', 'utf8'));
if (process.env.HANG_AT && process.env.LOOP_ITERATION === process.env.HANG_AT) {
  process.on('SIGTERM', () => {});
  setInterval(() => {}, 1000);
  writeFileSync(process.env.HANG_MARK, 'hanging');
} else {
  const wait = Number(process.env.SLEEP_MS ?? 0);
  setTimeout(() => console.log('score: ' + ((x - 3) ** 2 + 1)), wait);
}
`;

/** Writes `file`: the config `from` with `edits` (dotted paths) applied; yaml keeps the comments. */
export function editConfigFile(file: string, edits: Record<string, unknown>, from: string): void {
  const doc = parseDocument(readFileSync(from, 'utf8'));
  for (const [key, value] of Object.entries(edits)) doc.setIn(key.split('.'), value);
  writeFileSync(file, doc.toString());
}
