import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { runInGroupToLog } from '@loop/core/process';
import type { CodeBlock } from './extract-blocks.js';
import { applyReplacements, type BlockOptions } from './marker.js';

/** Where and how the blocks of one docs-test run execute. */
export interface BlockRunContext {
  /** The fresh clone's root (absolute); relative `cwd` and `file` options resolve against it. */
  root: string;
  /**
   * The run's scratch folder (absolute): `tmp:<name>` working folders, logs, the `loop` shim. Blocks see it as
   * `$DOCS_TEST_TMP` (and the clone's root as `$DOCS_TEST_ROOT`).
   */
  tmp: string;
  /** The folder, relative to `root`, where ts blocks are saved when their marker names no `file`. */
  scratchPackage: string;
  /** The environment every block starts from (see `cleanEnvironment`). */
  env: NodeJS.ProcessEnv;
  /** A folder holding a `loop` executable, put first on PATH for blocks marked `installed`. */
  loopBinDir?: string;
}

/** What running one block gave. */
export interface BlockResult {
  /** True when the block did what its marker expects (exit code, `expect`, `until`). */
  ok: boolean;
  /** The exit code (null when killed by a signal or stopped after `until` matched). */
  exitCode: number | null;
  /** Everything the block printed (stdout and stderr interleaved). */
  output: string;
  /**
   * What ran: the block after the marker's replacements (for ts, with `prepend`/`append`; for sh, without the
   * prologue).
   */
  script: string;
  /** Why it failed, one line; `undefined` when ok. */
  reason?: string;
  /** Wall time of the block, in ms. */
  durationMs: number;
}

const DEFAULT_TIMEOUT_S = 120;
const TAIL_LINES = 40;
/** The README's test line (and vitest itself) must never run inside the test suite: that would recurse. */
const RECURSIVE = /\bpnpm(?:@[\w.-]+)?\s+(?:run\s+)?test\b|\bvitest\b/;

/** Slug of a page for file names: `docs/cli.md` -> `docs-cli`. */
function slug(file: string): string {
  return file
    .replace(/\.md$/, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Resolves a block's working folder: `tmp:<name>` under the scratch folder, otherwise relative to the clone. */
async function workingDir(options: BlockOptions, ctx: BlockRunContext): Promise<string> {
  const cwd = options.cwd ?? '.';
  const dir = cwd.startsWith('tmp:') ? join(ctx.tmp, cwd.slice(4)) : isAbsolute(cwd) ? cwd : join(ctx.root, cwd);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** The sh prologue: strict mode, and an ERR trap naming the failing command by its markdown line. */
function shPrologue(block: CodeBlock): string {
  // The block starts on script line 3, which is markdown line block.line + 1.
  const at = `${block.file}:$((LINENO + ${block.line - 2}))`;
  return `set -Eeuo pipefail\ntrap 's=$?; echo "docs-test: ${at}: exit $s: \\\`$BASH_COMMAND\\\`" >&2' ERR\n`;
}

/**
 * Where a ts block is saved: the marker's `file`, else `<scratchPackage>/<page slug>-<fence line>.ts`,
 * resolved against the clone's root (absolute).
 */
export function tsBlockFile(block: CodeBlock, ctx: Pick<BlockRunContext, 'root' | 'scratchPackage'>): string {
  return resolve(ctx.root, block.options?.file ?? join(ctx.scratchPackage, `${slug(block.file)}-${block.line}.ts`));
}

/**
 * Runs one marked block in the clone and checks it against its marker.
 *
 * sh blocks: saved as a script (`set -Eeuo pipefail`, an ERR trap printing
 * `docs-test: <page>:<line>: exit <code>: \`<command>\``) and run with bash. ts blocks: saved
 * as a file in `ctx.scratchPackage` (or the marker's `file`) and run with
 * `node --import tsx --conditions=source <file>`. Either runs as the leader of its own process
 * group (core's `runInGroupToLog`), killed at the marker's `timeoutS` (default 120 s).
 *
 * @throws Error when the block would run the test suite (`pnpm test`, `vitest`: recursion), or a
 *   `replace` text is not in the block; a block that fails is a result, never a throw.
 */
export async function runBlock(block: CodeBlock, ctx: BlockRunContext): Promise<BlockResult> {
  const options = block.options ?? {};
  const code = applyReplacements(block.code, options.replace);
  if (RECURSIVE.test(code))
    throw new Error(
      `${block.file}:${block.line}: the block would run the test suite inside ` +
        `itself; leave that line out with "replace"`,
    );
  const cwd = await workingDir(options, ctx);
  const name = `${slug(block.file)}-${block.line}`;
  let script: string;
  let command: string;
  if (block.lang === 'sh') {
    script = code;
    const path = join(ctx.tmp, 'blocks', `${name}.sh`);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, shPrologue(block) + code);
    command = `bash '${path}'`;
  } else if (block.lang === 'ts') {
    script = `${options.prepend ? `${options.prepend}\n` : ''}${code}${options.append ? `${options.append}\n` : ''}`;
    const path = tsBlockFile(block, ctx);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, script);
    command = `node --import tsx --conditions=source '${relative(cwd, path) || path}'`;
  } else {
    throw new Error(`${block.file}:${block.line}: only sh and ts blocks run, not "${block.lang}"`);
  }
  const env: NodeJS.ProcessEnv = { ...ctx.env, DOCS_TEST_TMP: ctx.tmp, DOCS_TEST_ROOT: ctx.root, ...options.env };
  if (options.installed && ctx.loopBinDir) env.PATH = `${ctx.loopBinDir}:${env.PATH ?? ''}`;
  const logPath = join(ctx.tmp, 'logs', `${name}.log`);
  const controller = new AbortController();
  let matched = false;
  let poll: NodeJS.Timeout | undefined;
  if (options.until) {
    const pattern = new RegExp(options.until);
    // A server block runs until stopped: watch its log, stop its group once the output matches.
    poll = setInterval(() => {
      void readFile(logPath, 'utf8').then(
        (text) => {
          if (!matched && pattern.test(text)) {
            matched = true;
            controller.abort();
          }
        },
        () => undefined,
      );
    }, 100);
  }
  const timeoutS = options.timeoutS ?? DEFAULT_TIMEOUT_S;
  const run = await runInGroupToLog({
    command,
    cwd,
    env,
    logPath,
    killTimeoutMs: timeoutS * 1000,
    graceMs: 5_000,
    signal: controller.signal,
  }).finally(() => clearInterval(poll));
  const output = await readFile(logPath, 'utf8').catch(() => '');
  const base = { exitCode: run.exitCode, output, script, durationMs: run.durationMs };
  const expectedExit = options.exit ?? 0;
  let reason: string | undefined;
  if (options.until) {
    if (!matched && !new RegExp(options.until).test(output))
      reason = run.timedOut
        ? `timed out after ${timeoutS} s before its output matched /${options.until}/`
        : `ended (exit ${run.exitCode ?? run.signal}) before its output matched /${options.until}/`;
  } else if (run.spawnError) reason = `could not start: ${run.spawnError.message}`;
  else if (run.timedOut) reason = `timed out after ${timeoutS} s`;
  else if (run.exitCode !== expectedExit) reason = `exited ${run.exitCode ?? run.signal}, expected ${expectedExit}`;
  else if (options.expect !== undefined && !output.includes(options.expect))
    reason = `its output does not contain ${JSON.stringify(options.expect)}`;
  return reason === undefined ? { ok: true, ...base } : { ok: false, reason, ...base };
}

/** For a ts block: the markdown line of the first stack frame in the block's own file, e.g. `docs/x.md:31`. */
function tsFailureLine(block: CodeBlock, result: BlockResult): string | undefined {
  const name = options(block).file ?? `${slug(block.file)}-${block.line}.ts`;
  const base = name
    .split('/')
    .pop()!
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const hit = new RegExp(`${base}:(\\d+)`).exec(result.output);
  if (!hit) return undefined;
  const prepended = options(block).prepend ? options(block).prepend!.split('\n').length : 0;
  const blockLine = Number(hit[1]) - prepended;
  return blockLine >= 1 ? `${block.file}:${block.line + blockLine}` : undefined;
}

function options(block: CodeBlock): BlockOptions {
  return block.options ?? {};
}

/**
 * The failure message of a block: `<page>:<fence line> (<lang> block): <reason>`, where it failed
 * (the sh ERR trap's `<page>:<line>: exit <code>: \`<command>\`` line, or a ts stack frame mapped
 * to its markdown line), the block as it ran, and the last 40 lines of its output.
 */
export function formatFailure(block: CodeBlock, result: BlockResult): string {
  const lines = result.output.trimEnd().split('\n');
  const tail = lines.slice(-TAIL_LINES).join('\n');
  const trap = result.output.split('\n').find((l) => l.startsWith('docs-test: '));
  const at = block.lang === 'sh' ? trap?.slice('docs-test: '.length) : tsFailureLine(block, result);
  return [
    `${block.file}:${block.line} (${block.lang} block): ${result.reason ?? 'failed'}`,
    ...(at ? [`  failed at ${at}`] : []),
    '--- the block as it ran ---',
    result.script.trimEnd(),
    `--- output (last ${Math.min(lines.length, TAIL_LINES)} of ${lines.length} lines) ---`,
    tail,
  ].join('\n');
}
