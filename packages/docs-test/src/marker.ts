/**
 * The docs-test marker: an HTML comment on the line right before a ```sh or ```ts fence.
 *
 *     <!-- docs-test -->
 *     <!-- docs-test: {"replace": [["demo", "demo --iterations 1 --steps 200"]]} -->
 *     <!-- docs-test: {"skip": "needs the claude CLI"} -->
 *
 * The options are one JSON object (so quoting and spaces need no rules of their own). Markdown
 * renders the comment as nothing, so readers see the block exactly as written.
 */

/** The options a marker may carry. Every field is optional; `<!-- docs-test -->` runs the block as written. */
export interface BlockOptions {
  /** Do not run the block; the reason is printed as the skipped test's name (an agent CLI, the network, a browser). */
  skip?: string;
  /**
   * Where the block runs: a path relative to the clone's root (default `.`), or `tmp:<name>`, a
   * folder of that name in the run's scratch folder, created on first use and shared by every block
   * that names it (consecutive blocks of one page that build on each other).
   */
  cwd?: string;
  /** Extra environment variables for this block (on top of the cleaned environment of the run). */
  env?: Record<string, string>;
  /**
   * Literal text substitutions applied to the block before it runs, in order, each `[from, to]`;
   * a `from` that does not occur is an error (so a stale marker fails instead of silently doing
   * nothing). Used to shorten a long job (`--iterations 1 --steps 200`), to leave out a line that
   * cannot run here, or to move an absolute path such as `/tmp/my-loop` into the scratch folder
   * (`$DOCS_TEST_TMP/my-loop`; sh blocks expand it).
   */
  replace?: [string, string][];
  /** The exit code the block must end with. @default 0 */
  exit?: number;
  /** Text the block's output (stdout and stderr) must contain. */
  expect?: string;
  /**
   * The block starts a server that runs until stopped: it passes once its output matches this
   * regular expression (then its process group is stopped); it fails if it ends or times out first.
   */
  until?: string;
  /**
   * The block is written for a project with `@loop/cli` installed (`loop ...`): a `loop` on PATH
   * runs the clone's CLI from its sources. Without it no `loop` is on PATH, so a from-clone block
   * that says a bare `loop` fails, as it would for a user.
   */
  installed?: boolean;
  /**
   * ts blocks: where the file is saved, relative to the clone's root. @default `examples/docs-scratch/<page>-<line>.ts`
   */
  file?: string;
  /**
   * ts blocks: code put before the block (declarations the page assumes from its earlier text); counted in line
   * numbers.
   */
  prepend?: string;
  /** ts blocks: code put after the block (checks of what the page says the block produces). */
  append?: string;
  /** The longest the block may run, in seconds; its process group is killed past it. @default 120 */
  timeoutS?: number;
}

const MARKER = /^\s*<!--\s*docs-test(?:\s*:\s*(.*?))?\s*-->\s*$/;
const KEYS = new Set([
  'skip',
  'cwd',
  'env',
  'replace',
  'exit',
  'expect',
  'until',
  'installed',
  'file',
  'prepend',
  'append',
  'timeoutS',
]);

/**
 * Parses a marker line.
 *
 * @returns `undefined` when the line is not a marker; the options otherwise.
 * @throws TypeError naming the problem when the line is a marker whose options are not valid JSON,
 *   not an object, carry an unknown key or a value of the wrong type.
 */
export function parseMarker(line: string): BlockOptions | undefined {
  const match = MARKER.exec(line);
  if (!match) return undefined;
  const text = match[1];
  if (text === undefined || text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`docs-test marker options are not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError('docs-test marker options must be a JSON object');
  const options = value as Record<string, unknown>;
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key))
      throw new TypeError(`docs-test marker: unknown option "${key}"; allowed: ${[...KEYS].join(', ')}`);
  }
  const want = (key: string, type: 'string' | 'number' | 'boolean') => {
    if (options[key] !== undefined && typeof options[key] !== type)
      throw new TypeError(`docs-test marker: "${key}" must be a ${type}`);
  };
  for (const key of ['skip', 'cwd', 'expect', 'until', 'file', 'prepend', 'append']) want(key, 'string');
  for (const key of ['exit', 'timeoutS']) want(key, 'number');
  want('installed', 'boolean');
  const env = options.env;
  if (
    env !== undefined &&
    (typeof env !== 'object' ||
      env === null ||
      Array.isArray(env) ||
      Object.values(env).some((v) => typeof v !== 'string'))
  ) {
    throw new TypeError('docs-test marker: "env" must be an object of strings');
  }
  const replace = options.replace;
  if (
    replace !== undefined &&
    (!Array.isArray(replace) ||
      replace.some((pair) => !Array.isArray(pair) || pair.length !== 2 || pair.some((s) => typeof s !== 'string')))
  ) {
    throw new TypeError('docs-test marker: "replace" must be a list of [from, to] string pairs');
  }
  if (typeof options.until === 'string') new RegExp(options.until); // throws SyntaxError on a bad pattern
  return options as BlockOptions;
}

/**
 * Applies a marker's `replace` pairs to a block's code, in order, each to every occurrence.
 *
 * @throws Error naming the text when a `from` does not occur in the code (a stale marker).
 */
export function applyReplacements(code: string, replace: readonly (readonly [string, string])[] = []): string {
  let out = code;
  for (const [from, to] of replace) {
    if (!out.includes(from))
      throw new Error(`docs-test marker: replace text not found in the block: ${JSON.stringify(from)}`);
    out = out.split(from).join(to);
  }
  return out;
}
