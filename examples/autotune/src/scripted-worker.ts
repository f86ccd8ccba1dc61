import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { failedAttempts, type RoundWorker } from '@loop/autotune';
import { evaluateTasks } from './evaluate.js';

/**
 * The "agent": for each task, the patches it would try, in order (attempt 1, 2, 3, ...). clamp and
 * slugify are fixed at the first attempt, median at the second; roman and parse-duration only ever
 * get wrong patches, so they fail three times and get parked.
 */
const PATCHES: Record<string, string[]> = {
  clamp: ['export default function clamp(x, lo, hi) {\n  return Math.min(hi, Math.max(lo, x));\n}\n'],
  slugify: [
    'export default function slugify(text) {\n  return ' +
      "text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean).join('-');\n}\n",
  ],
  median: [
    'export default function median(xs) {\n  const s = [...xs].sort((a, b) ' +
      '=> a - b);\n  return s[Math.floor(s.length / 2)];\n}\n',
    'export default function median(xs) {\n  const s = [...xs].sort((a, b) ' +
      '=> a - b);\n  const m = Math.floor(s.length / 2);\n  return s.length % 2 ' +
      '? s[m] : (s[m - 1] + s[m]) / 2;\n}\n',
  ],
  roman: [
    "export default function roman(n) {\n  const t = [[1000, 'M'], [500, " +
      "'D'], [100, 'C'], [50, 'L'], [10, 'X'], [5, 'V'], [1, 'I']];\n  let out " +
      "= '';\n  for (const [v, s] of t) while (n >= v) { out += s; n -= v; }\n  " +
      'return out;\n}\n',
    "export default function roman(n) {\n  const t = [[1000, 'M'], [900, " +
      "'CM'], [500, 'D'], [100, 'C'], [50, 'L'], [10, 'X'], [5, 'V'], [4, " +
      "'IV'], [1, 'I']];\n  let out = '';\n  for (const [v, s] of t) while (n " +
      '>= v) { out += s; n -= v; }\n  return out;\n}\n',
    "export default function roman(n) {\n  const t = [[1000, 'M'], [900, " +
      "'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'], [50, 'L'], [10, " +
      "'X'], [5, 'V'], [4, 'IV'], [1, 'I']];\n  let out = '';\n  for (const [v, " +
      's] of t) while (n >= v) { out += s; n -= v; }\n  return out;\n}\n',
  ],
  'parse-duration': [
    'export default function parseDuration(text) {\n  const m = ' +
      "/^(\\d+)h(\\d+)m(\\d+)s$/.exec(text);\n  if (!m) throw new Error('bad " +
      "duration');\n  return +m[1] * 3600 + +m[2] * 60 + +m[3];\n}\n",
    'export default function parseDuration(text) {\n  const m = ' +
      '/^(?:(\\d+)h)?(?:(\\d+)m)?(\\d+)s$/.exec(text);\n  if (!m) throw new ' +
      "Error('bad duration');\n  return +(m[1] ?? 0) * 3600 + +(m[2] ?? 0) * 60 " +
      '+ +m[3];\n}\n',
    'export default function parseDuration(text) {\n  const m = ' +
      '/^(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)$/.exec(text);\n  if (!m) throw new ' +
      "Error('bad duration');\n  return (+m[1] || 0) * 3600 + (+m[2] || 0) * 60 " +
      '+ (+m[3] || 0);\n}\n',
  ],
};

/**
 * A scripted round worker over the example workspace. `improve` checks the working tree, targets
 * every failing task not in cannot_handle_group.txt, and writes the next patch for it (attempt
 * number = failed attempts on the scoreboard + 1). `evaluate` checks the build directory the sync
 * check rebuilt from the latest commit. It keeps no state: a new process behaves the same.
 */
export function createScriptedWorker(
  vectorsPath: (dir: string) => string,
  buildDir: (dir: string) => string,
): RoundWorker {
  return {
    name: 'scripted-agent',
    improve: async ({ dir, scoreboard, excluded }) => {
      const failing = (await evaluateTasks(join(dir, 'tasks'), vectorsPath(dir)))
        .filter((t) => !t.passed && !excluded.includes(t.id))
        .map((t) => t.id);
      const done: string[] = [];
      for (const id of failing) {
        const attempt = failedAttempts(scoreboard, id) + 1;
        const patches = PATCHES[id] ?? [];
        const patch = patches[Math.min(attempt, patches.length) - 1];
        if (patch === undefined) continue;
        writeFileSync(join(dir, 'tasks', `${id}.mjs`), patch);
        done.push(`${id} #${attempt}`);
      }
      return {
        summary: done.length > 0 ? `patch ${done.join(', ')}` : 'no patch left to try',
        targets: failing,
        changed: done.length > 0,
      };
    },
    evaluate: async ({ dir }) => ({
      tasks: await evaluateTasks(buildDir(dir), vectorsPath(dir)),
      rationales: {
        roman:
          'subtractive pairs (XL, XC, CD) keep slipping through the patches; needs ' +
          'a table-driven rewrite out of scope for this agent',
        'parse-duration':
          'the grammar (optional units, order, whitespace) is unspecified; needs a product decision first',
      },
    }),
  };
}
