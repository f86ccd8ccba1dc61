import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EvaluatorTarget } from './run-evaluator.js';

/** How to run an evaluator as the loop's harness. */
export interface EvaluatorInvocation {
  /** The shell command (for `/bin/sh -c`), printing `dim.<name>: <n>` lines and `score: <n>` last. */
  readonly command: string;
  /**
   * Absolute paths of every file the evaluation runs (the evaluator's modules, and every
   * JavaScript file and the package.json of the libraries it loads): give them to auto-iterate's `harnessFiles` so that
   * a change to any of them is
   * `HARNESS_TAMPERED` (seed 001: 评估脚本不可修改).
   */
  readonly harnessFiles: string[];
}

/** Options of {@link evaluatorInvocation}. */
export interface EvaluatorInvocationOptions {
  /** memory: score only this agent's subfolder. */
  agent?: string;
  /** memory: the question set file (as the command should name it, e.g. relative to the workspace). */
  questions?: string;
  /** The folder of the `@loop/evaluators` package. @default this package's own */
  packageDir?: string;
}

const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The folder of this package (found from this module's own location, in src/ or dist/). */
export function evaluatorsPackageDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === '@loop/evaluators')
      return dir;
    dir = dirname(dir);
  }
  throw new Error('[loop] [evaluators] cannot find the @loop/evaluators package folder');
}

function filesIn(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir)
    .filter(keep)
    .sort()
    .map((n) => join(dir, n));
}

/** Every JavaScript file of the package `entry` belongs to (whichever of its builds Node loads), sorted. */
function libraryFiles(entry: string): string[] {
  let root = dirname(entry);
  while (!existsSync(join(root, 'package.json')) && dirname(root) !== root) root = dirname(root);
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory() && e.name !== 'node_modules') walk(join(dir, e.name));
      else if (e.isFile() && /\.(c|m)?js$/.test(e.name)) out.push(join(dir, e.name));
    }
  };
  walk(root);
  return [join(root, 'package.json'), ...out];
}

/**
 * The command that runs the `type` evaluator on `target` and the files it depends on. A built
 * package runs `node <pkg>/dist/main.js`; a source checkout (this module loaded from `src/`, as in
 * the loop repository) runs `src/main.ts` through tsx's loader, resolved by absolute path so the
 * workspace needs nothing installed. Paths in the command are absolute, outside the workspace,
 * where the proposer cannot write them (its sandbox allows only its targets) and the harness
 * fingerprint covers them.
 */
export function evaluatorInvocation(
  type: EvaluatorTarget,
  target: string,
  options: EvaluatorInvocationOptions = {},
): EvaluatorInvocation {
  const pkg = options.packageDir ?? evaluatorsPackageDir();
  const fromSource = !existsSync(join(pkg, 'dist', 'main.js')) || fileURLToPath(import.meta.url).endsWith('.ts');
  const require = createRequire(join(pkg, 'package.json'));
  const libs = ['minisearch', 'yaml'].flatMap((m) => libraryFiles(require.resolve(m)));
  const args = [
    type,
    target,
    ...(options.agent ? ['--agent', options.agent] : []),
    ...(options.questions ? ['--questions', options.questions] : []),
  ]
    .map(q)
    .join(' ');
  if (!fromSource) {
    return {
      command: `${q(process.execPath)} ${q(join(pkg, 'dist', 'main.js'))} ${args}`,
      harnessFiles: [...filesIn(join(pkg, 'dist'), (n) => n.endsWith('.js')), ...libs],
    };
  }
  const tsx = pathToFileURL(createRequire(join(pkg, 'package.json')).resolve('tsx/esm')).href;
  return {
    command: `${q(process.execPath)} --import ${q(tsx)} ${q(join(pkg, 'src', 'main.ts'))} ${args}`,
    harnessFiles: [...filesIn(join(pkg, 'src'), (n) => n.endsWith('.ts') && !n.endsWith('.test.ts')), ...libs],
  };
}
