import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What {@link checkScript} found for one script. */
export interface ScriptCheck {
  /** The script, relative to the skill folder. */
  readonly path: string;
  /** Whether it parses; `undefined` when no parser for its language is here (the check is skipped). */
  readonly parses: boolean | undefined;
  /** The parser's first error line. */
  readonly parseError?: string;
  /** Whether `--help` exited 0 within the timeout. */
  readonly helpOk: boolean;
  /** Why `--help` failed. */
  readonly helpError?: string;
  /** What `--help` printed (stdout and stderr), for the consistency check. */
  readonly helpText: string;
}

const PY_PARSE = 'import ast,sys; ast.parse(open(sys.argv[1], encoding="utf-8").read(), sys.argv[1])';

function interpreter(path: string, abs: string): string[] | undefined {
  if (/\.(js|mjs|cjs)$/.test(path)) return [process.execPath];
  if (/\.(sh|bash)$/.test(path)) return ['bash'];
  if (/\.py$/.test(path)) return ['python3'];
  const first = readFileSync(abs, 'utf8').split('\n', 1)[0] ?? '';
  if (/^#!.*\bnode\b/.test(first)) return [process.execPath];
  if (/^#!.*\b(ba)?sh\b/.test(first)) return ['bash'];
  if (/^#!.*\bpython/.test(first)) return ['python3'];
  return (statSync(abs).mode & 0o111) !== 0 ? [] : undefined;
}

const ENV = { ...process.env, PYTHONDONTWRITEBYTECODE: '1', NO_COLOR: '1' };

function run(argv: string[], cwd: string, timeoutMs: number) {
  return spawnSync(argv[0]!, argv.slice(1), {
    cwd,
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    encoding: 'utf8',
    env: ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 1024 * 1024,
  });
}

function firstLine(s: string | null | undefined): string {
  return (
    (s ?? '')
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0)
      ?.slice(0, 200) ?? ''
  );
}

/**
 * Checks one script of a skill folder: parses it (`node --check`, `bash -n`, Python's
 * `ast.parse`, none of which run it or write bytecode) and runs it with `--help` in the folder
 * under a hard timeout (SIGKILL); its output is captured, never passed through, so a script
 * cannot print a score line into the evaluator's output. Processes a script leaves behind are
 * ended with the harness's process group when the evaluator runs under the loop.
 */
export async function checkScript(dir: string, path: string, timeoutMs: number): Promise<ScriptCheck> {
  const abs = join(dir, path);
  const interp = interpreter(path, abs);
  let parses: boolean | undefined;
  let parseError: string | undefined;
  const parser =
    /\.(js|mjs|cjs)$/.test(path) || interp?.[0] === process.execPath
      ? [process.execPath, '--check', abs]
      : interp?.[0] === 'bash'
        ? ['bash', '-n', abs]
        : interp?.[0] === 'python3'
          ? ['python3', '-c', PY_PARSE, abs]
          : undefined;
  if (parser) {
    const r = run(parser, dir, timeoutMs);
    if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') parses = undefined;
    else {
      parses = r.status === 0;
      if (!parses) parseError = firstLine(r.stderr) || firstLine(r.stdout) || `exit ${r.status ?? r.signal}`;
    }
  }
  if (interp === undefined)
    return {
      path,
      parses,
      ...(parseError ? { parseError } : {}),
      helpOk: false,
      helpError: 'neither executable nor of a known language',
      helpText: '',
    };
  const r = run([...interp, abs, '--help'], dir, timeoutMs);
  const helpText = `${r.stdout ?? ''}\n${r.stderr ?? ''}`;
  let helpError: string | undefined;
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') helpError = `timed out after ${timeoutMs} ms`;
  else if (r.error) helpError = (r.error as NodeJS.ErrnoException).code ?? r.error.message;
  else if (r.status !== 0)
    helpError = `exit ${r.status ?? r.signal}${firstLine(r.stderr) ? `: ${firstLine(r.stderr)}` : ''}`;
  return {
    path,
    parses,
    ...(parseError ? { parseError } : {}),
    helpOk: helpError === undefined,
    ...(helpError ? { helpError } : {}),
    helpText,
  };
}
