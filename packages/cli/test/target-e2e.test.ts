import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runCli } from '../src/cli.js';

// seed 001: loop init --target <type> <path> + loop run, on a real git repository, with a scripted
// agent command (a fresh process per round, told the round by LOOP_ITERATION) and the real
// built-in evaluators of @loop/evaluators as the harness.
const FIXTURES = fileURLToPath(new URL('../../evaluators/test/fixtures/', import.meta.url));

let ws: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, encoding: 'utf8' }).trim();

async function cli(...args: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const sink = { write: (s: string) => (out.push(s), true) } as unknown as NodeJS.WritableStream;
  const code = await runCli(args, { stdout: sink, stderr: sink, cwd: ws, tty: false });
  return { code, out: out.join('') };
}

/** Writes the scripted agent: round n runs the n-th edit (a node snippet over the target). */
function agent(edits: string[]): string {
  const file = join(ws, '..', `${ws.split('/').pop()}-agent.mjs`);
  writeFileSync(
    file,
    `import { readFileSync, writeFileSync, appendFileSync, rmSync, mkdirSync, chmodSync } from 'node:fs';
process.stdin.resume(); process.stdin.on('data', () => {}); process.stdin.on('end', () => {
  const edits = ${JSON.stringify(edits)};
  const edit = edits[Number(process.env.LOOP_ITERATION) - 1];
  if (edit) new Function('fs', edit)({ readFileSync, writeFileSync, appendFileSync, rmSync, mkdirSync, chmodSync });
});`,
  );
  return file;
}

/** Points the starter config at the scripted agent (no sandbox: the test agent writes only its target). */
function useAgent(configFile: string, agentFile: string, maxIterations: number): void {
  const doc = parseDocument(readFileSync(configFile, 'utf8'));
  doc.setIn(['proposer', 'command'], `node ${agentFile}`);
  doc.setIn(['proposer', 'sandbox'], 'none');
  doc.set('maxIterations', maxIterations);
  doc.set('maxRepairAttempts', 0);
  writeFileSync(configFile, doc.toString());
}

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'loop-target-'));
  git('init', '-q', '-b', 'main');
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const rows = (p: string) => parseAutoIterateTsv(readFileSync(join(ws, p), 'utf8'));

describe('loop init --target + loop run (seed 001 target types)', () => {
  it(
    'skill: a better SKILL.md is kept on auto-iterate/<date>-<target>, a ' +
      'worse one and a broken one are reset; results.tsv and dimensions.tsv sit ' +
      'untracked in the target folder',
    async () => {
      mkdirSync(join(ws, 'skills/review'), { recursive: true });
      const good = readFileSync(join(FIXTURES, 'skill-good/SKILL.md'), 'utf8');
      // the starting skill lacks its negative examples and its constraints heading
      const start = good.replace(/- Should not trigger:.*\n/, '').replace('## Constraints', '## Notes');
      writeFileSync(join(ws, 'skills/review/SKILL.md'), start);
      git('add', '.');
      git('commit', '-qm', 'skill');
      const init = await cli('init', '--target', 'skill', 'skills/review/SKILL.md');
      expect(init.code).toBe(0);
      const config = readFileSync(join(ws, 'loop.config.yaml'), 'utf8');
      expect(config).toContain('target:\n  type: skill\n  path: "skills/review/SKILL.md"');
      expect(config).toMatch(/Never retry verbatim a change that results.tsv shows as discarded/);
      const p = JSON.stringify('skills/review/SKILL.md');
      useAgent(
        join(ws, 'loop.config.yaml'),
        agent([
          `const t = fs.readFileSync(${p}, 'utf8'); fs.writeFileSync(${p}, ` +
            `t.replace('/review\\n', '/review\\n- Should not trigger: write a new ` +
            `feature, deploy to production\\n')); console.log('DESCRIPTION: add ` +
            `negative trigger examples');`,
          `fs.appendFileSync(${p}, '\\nTry to handle various things properly, ` +
            `etc.\\n'); console.log('DESCRIPTION: add a vague paragraph');`,
          `const t = fs.readFileSync(${p}, 'utf8'); fs.writeFileSync(${p}, ` +
            `t.replace('name: review-pr', 'name: [review')); ` +
            `console.log('DESCRIPTION: break the frontmatter');`,
          `const t = fs.readFileSync(${p}, 'utf8'); fs.writeFileSync(${p}, ` +
            `t.replace('## Notes', '## Constraints')); console.log('DESCRIPTION: name ` +
            `the constraints section');`,
        ]),
        4,
      );
      git('add', 'loop.config.yaml');
      git('commit', '-qm', 'config');

      const run = await cli('run');
      expect(run.code, run.out).toBe(0);
      const branch = git('rev-parse', '--abbrev-ref', 'HEAD');
      expect(branch).toMatch(/^auto-iterate\/[a-z]{3}\d{1,2}-\d{6}-review$/);
      const results = rows('skills/review/results.tsv');
      expect(results.map((r) => [r.status, r.description])).toEqual([
        ['baseline', 'baseline'],
        ['kept', 'add negative trigger examples'],
        ['reverted', 'add a vague paragraph'],
        ['crash', expect.stringContaining('break the frontmatter')],
        ['kept', 'name the constraints section'],
      ]);
      expect(readFileSync(join(ws, 'skills/review/results.tsv'), 'utf8').split('\n')[0]).toBe(
        'commit\tscore\tstatus\tdescription',
      );
      expect(results[4]!.score!).toBeGreaterThan(results[1]!.score!);
      expect(results[1]!.score!).toBeGreaterThan(results[0]!.score!);
      // the branch holds the keeps (commits "auto-iterate: <change>"); the discard and the crash were reset
      expect(git('log', '--format=%s', 'main..HEAD').split('\n')).toEqual([
        'auto-iterate: name the constraints section',
        'auto-iterate: add negative trigger examples',
      ]);
      expect(readFileSync(join(ws, 'skills/review/SKILL.md'), 'utf8')).toBe(good);
      // results.tsv and dimensions.tsv are untracked and excluded; the tree is clean
      expect(git('status', '--porcelain')).toBe('');
      expect(git('ls-files', 'skills/review')).toBe('skills/review/SKILL.md');
      const dims = readFileSync(join(ws, 'skills/review/dimensions.tsv'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split('\t'));
      expect(dims[0]).toEqual([
        'commit',
        'score',
        'status',
        'frontmatter',
        'trigger_quality',
        'workflow',
        'constraints',
        'io_spec',
        'examples',
        'clarity',
        'size',
      ]);
      const col = (name: string) => dims[0]!.indexOf(name);
      // what moved in round 1
      expect(Number(dims[2]![col('trigger_quality')])).toBeGreaterThan(Number(dims[1]![col('trigger_quality')]));
      expect(Number(dims[3]![col('clarity')])).toBeLessThan(Number(dims[2]![col('clarity')])); // what sank in round 2
      expect(dims[4]!.slice(1, 3)).toEqual(['crash', 'crash']);
      expect(Number(dims[5]![col('constraints')])).toBe(10);
      const status = await cli('status');
      expect(status.out).toContain('add negative trigger examples');
    },
  );

  it(
    'memory: deleting a duplicate memory file (noise, and missing from the ' +
      'index) is kept; an edit to the question set is rejected',
    async () => {
      cpSync(join(FIXTURES, 'memory-good'), join(ws, 'memory'), { recursive: true });
      cpSync(join(FIXTURES, 'memory-good.questions.json'), join(ws, 'memory.questions.json'));
      cpSync(join(ws, 'memory/database.md'), join(ws, 'memory/db-copy.md'));
      git('add', '.');
      git('commit', '-qm', 'memory');
      expect((await cli('init', '--target', 'memory', 'memory')).code).toBe(0);
      useAgent(
        join(ws, 'loop.config.yaml'),
        agent([
          `fs.writeFileSync('memory.questions.json', ` +
            `'[{"query":"x","answer":"y"}]'); console.log('DESCRIPTION: rewrite the ` +
            `questions');`,
          `fs.rmSync('memory/db-copy.md'); console.log('DESCRIPTION: delete the duplicate');`,
        ]),
        2,
      );
      git('add', 'loop.config.yaml');
      git('commit', '-qm', 'config');
      const run = await cli('run');
      expect(run.code, run.out).toBe(0);
      const results = rows('memory/results.tsv');
      expect(results.map((r) => r.status)).toEqual(['baseline', 'rejected', 'kept']);
      expect(results[1]!.description).toMatch(/memory\.questions\.json/);
      expect(results[2]!.score).toBe(10);
      expect(git('ls-files', 'memory')).not.toContain('db-copy.md');
    },
  );

  it(
    'skill-full: the executable bit on a script is kept (conventions up); a ' +
      'script that no longer parses is discarded (code down); a new ' +
      'requirements.txt is rejected',
    async () => {
      cpSync(join(FIXTURES, 'full-good'), join(ws, 'wc'), { recursive: true });
      chmodSync(join(ws, 'wc/scripts/count.mjs'), 0o644);
      git('add', '.');
      git('commit', '-qm', 'skill folder');
      expect((await cli('init', '--target', 'skill-full', 'wc')).code).toBe(0);
      useAgent(
        join(ws, 'loop.config.yaml'),
        agent([
          `fs.chmodSync('wc/scripts/count.mjs', 0o755); console.log('DESCRIPTION: make count.mjs executable');`,
          `fs.appendFileSync('wc/scripts/count.mjs', '\\nconst = ;\\n'); ` +
            `console.log('DESCRIPTION: add a broken line');`,
          `fs.writeFileSync('wc/requirements.txt', 'requests==2.32.3\\n'); ` +
            `console.log('DESCRIPTION: add a requirements file');`,
        ]),
        3,
      );
      git('add', 'loop.config.yaml');
      git('commit', '-qm', 'config');
      const run = await cli('run');
      expect(run.code, run.out).toBe(0);
      const results = rows('wc/results.tsv');
      expect(results.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted', 'rejected']);
      // seed 001: CANNOT install dependencies, even in the mutable skill folder
      expect(results[3]!.description).toContain('no-new-dependencies: changed wc/requirements.txt');
      expect(git('ls-files', '-s', 'wc/scripts/count.mjs')).toMatch(/^100755 /);
      const dims = readFileSync(join(ws, 'wc/dimensions.tsv'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split('\t'));
      expect(dims[0]).toEqual(['commit', 'score', 'status', 'definition', 'code', 'conventions', 'consistency']);
      expect(Number(dims[2]![5])).toBeGreaterThan(Number(dims[1]![5]));
      expect(Number(dims[3]![4])).toBeLessThan(Number(dims[2]![4]));
    },
  );

  it('code: --eval names the user command; init refuses code without it', async () => {
    writeFileSync(join(ws, 'x.json'), '{"x": 1}\n');
    writeFileSync(
      join(ws, 'eval.mjs'),
      `import { readFileSync } from 'node:fs'; console.log('score: ' + ` +
        `JSON.parse(readFileSync('x.json', 'utf8')).x);\n`,
    );
    git('add', '.');
    git('commit', '-qm', 'code');
    expect((await cli('init', '--target', 'code', 'x.json')).code).toBe(2);
    expect((await cli('init', '--target', 'code', 'x.json', '--eval', 'node eval.mjs')).code).toBe(0);
    useAgent(
      join(ws, 'loop.config.yaml'),
      agent([`fs.writeFileSync('x.json', '{"x": 5}\\n'); console.log('DESCRIPTION: x to 5');`]),
      1,
    );
    const doc = parseDocument(readFileSync(join(ws, 'loop.config.yaml'), 'utf8'));
    doc.set('readOnlyFiles', ['eval.mjs']);
    writeFileSync(join(ws, 'loop.config.yaml'), doc.toString());
    git('add', 'loop.config.yaml');
    git('commit', '-qm', 'config');
    const run = await cli('run');
    expect(run.code, run.out).toBe(0);
    expect(rows('results.tsv').map((r) => [r.score, r.status])).toEqual([
      [1, 'baseline'],
      [5, 'kept'],
    ]);
    expect(git('rev-parse', '--abbrev-ref', 'HEAD')).toMatch(/-x$/);
  });
});
