// `loop init --preset collie`, then `loop run` (which is `loop collie run`) and `loop status` on
// a real git project, in-process: a fake agent CLI (a shell script answering by
// $COLLIE_AGENT_ROLE) and an answers file (a queued run), as in collie.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMPLETION_SIGNAL } from '@loop/collie';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runCliCaptured } from './fixtures/run-cli.js';

let root: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

const loop = (...args: string[]) => runCliCaptured(root, args);

const AGENT = `cat > /dev/null
case "$COLLIE_AGENT_ROLE" in
  discovery) echo '1. echo "score: 1" (shell, 5): prints the score' ;;
  *) echo 'NO ISSUES' ;;
esac
`;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loop-preset-collie-'));
  const project = join(root, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# app\n');
  git(project, 'init', '-q', '-b', 'main');
  git(project, 'add', '.');
  git(project, 'commit', '-q', '-m', 'init');
  writeFileSync(join(root, 'agent.sh'), AGENT);
  writeFileSync(
    join(root, 'answers.json'),
    JSON.stringify({ Q1: 'echo "score: 1"', Q2: 'all_green', Q3: 'correctness', Q5: 'yes' }),
  );
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('loop init --preset collie, then loop run with no code', () => {
  it('runs the collie pipeline to converged through loop run, and loop status reads it', async () => {
    const env = process.env['COLLIE_AUTOITER_ACTIVE'];
    delete process.env['COLLIE_AUTOITER_ACTIVE'];
    try {
      expect((await loop('init', '--preset', 'collie')).code).toBe(0);
      const file = join(root, 'loop.config.yaml');
      const doc = parseDocument(readFileSync(file, 'utf8'));
      for (const [k, v] of Object.entries({
        projectId: 'app',
        projectDir: 'project',
        stateRoot: 'state',
        answers: 'answers.json',
        'agent.command': `sh ${join(root, 'agent.sh')}`,
        'agent.timeoutS': 30,
        'flow.testCommand': 'true',
      }))
        doc.setIn(k.split('.'), v);
      // The fake agent prints plain text: no JSON envelope, no usage line.
      doc.deleteIn(['agent', 'replyField']);
      doc.deleteIn(['agent', 'usagePattern']);
      writeFileSync(file, doc.toString());
      const run = await loop('run');
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      expect(run.out).toContain('Stage 6 → STOP (SC2: all green)');
      expect(run.out.split(COMPLETION_SIGNAL)).toHaveLength(2);
      expect(run.out).toMatch(/^run \S+ ended: converged \(\d+ steps\)$/m);
      const status = await loop('status', 'loop.config.yaml', '--json');
      expect(JSON.parse(status.out)).toMatchObject({ status: 'converged', stopReason: 'SC2: all green' });
    } finally {
      if (env !== undefined) process.env['COLLIE_AUTOITER_ACTIVE'] = env;
    }
  });
});
