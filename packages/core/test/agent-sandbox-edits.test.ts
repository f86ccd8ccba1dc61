import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileArtifact, type ProposalContext } from '../src/index.js';
import { createAgentCommandProposer } from '../src/proposers.js';
import { bwrapStatus } from '../src/process.js';

// Issue 32 item 2: the usual edit tools under the default sandbox (real bubblewrap, real tools).
const bwrap = bwrapStatus();
const skipped = bwrap.available ? '' : ` — skipped: ${bwrap.reason} (CI installs bubblewrap)`;

let base: string;
let ws: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'loop-agent-edits-'));
  ws = join(base, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'config.json'), '{"lr": 1}\n');
  writeFileSync(join(ws, 'prepare.mjs'), '// evaluation\n');
  writeFileSync(join(ws, 'src', 'model.py'), 'width = 1\n');
  writeFileSync(join(ws, 'src', 'data.py'), 'rows = 1\n');
  writeFileSync(join(base, 'outside.txt'), 'original\n');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function context(
  mutable: string[] = ['config.json', 'src/model.py'],
  readOnly: string[] = ['prepare.mjs'],
): ProposalContext {
  return {
    iteration: 1,
    attempt: 0,
    history: [],
    baseline: 1,
    best: 1,
    direction: 'minimize',
    hints: [],
    artifact: createFileArtifact({ root: ws, mutable, readOnly }),
    signal: new AbortController().signal,
  };
}

const agent = (lines: string[]) => {
  const path = join(base, `agent-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(path, ['cat > /dev/null', ...lines, ''].join('\n'));
  return `sh ${path}`;
};
const log = () => readFileSync(join(ws, '.loop', 'agent.log'), 'utf8');
/** The workspace's entries (recursive, `.loop` left out), to prove nothing was left behind. */
const tree = (dir = ws, prefix = ''): string[] =>
  readdirSync(dir, { withFileTypes: true })
    .filter((e) => !(prefix === '' && e.name === '.loop'))
    .flatMap((e) =>
      e.isDirectory()
        ? [`${prefix}${e.name}/`, ...tree(join(dir, e.name), `${prefix}${e.name}/`)]
        : [`${prefix}${e.name}`],
    )
    .sort();
const initialTree = ['config.json', 'prepare.mjs', 'src/', 'src/data.py', 'src/model.py'];

describe.skipIf(!bwrap.available)(
  `the usual edit tools work on targets in the default sandbox (real bwrap)${skipped}`,
  () => {
    it(
      'sed -i (temp file beside the target, renamed onto it) edits a target ' + 'at the root and one in a subfolder',
      async () => {
        const proposer = createAgentCommandProposer({
          command: agent(["sed -i 's/1/2/' config.json", "sed -i 's/1/3/' src/model.py", 'echo "DESCRIPTION: sed"']),
          cwd: ws,
          goal: 'g',
        });
        expect(await proposer.propose(context())).toEqual({
          description: 'sed',
          changedFiles: ['config.json', 'src/model.py'],
        });
        expect(readFileSync(join(ws, 'config.json'), 'utf8')).toBe('{"lr": 2}\n');
        expect(readFileSync(join(ws, 'src', 'model.py'), 'utf8')).toBe('width = 3\n');
        expect(tree()).toEqual(initialTree);
      },
    );

    it('python and node write-temp-then-rename (os.replace, fs.renameSync) replace a target', async () => {
      writeFileSync(
        join(base, 'py-edit.py'),
        "import os, tempfile\nfd, p = tempfile.mkstemp(dir='src')\nos.write(fd, " +
          "b'width = 4\\n')\nos.close(fd)\nos.replace(p, 'src/model.py')\n",
      );
      writeFileSync(
        join(base, 'node-edit.cjs'),
        "const fs = require('fs');\nfs.writeFileSync('config.json.tmp-1', " +
          "'{\"lr\": 5}\\n');\nfs.renameSync('config.json.tmp-1', " +
          "'config.json');\n",
      );
      const proposer = createAgentCommandProposer({
        command: agent([
          `python3 ${join(base, 'py-edit.py')}`,
          `node ${join(base, 'node-edit.cjs')}`,
          'echo "DESCRIPTION: rename"',
        ]),
        cwd: ws,
        goal: 'g',
      });
      expect(await proposer.propose(context())).toEqual({
        description: 'rename',
        changedFiles: ['config.json', 'src/model.py'],
      });
      expect(readFileSync(join(ws, 'src', 'model.py'), 'utf8')).toBe('width = 4\n');
      expect(readFileSync(join(ws, 'config.json'), 'utf8')).toBe('{"lr": 5}\n');
      expect(tree()).toEqual(initialTree);
    });

    it(
      "editors' patterns work: the target renamed to a backup and written anew " +
        '(emacs), a swap file beside it (vim); the backup is removed after the ' +
        'call',
      async () => {
        const vim = "vim -u NONE -i NONE -N -es -c '%s/6/7/' -c 'wq' config.json && echo 'vim wrote'";
        const proposer = createAgentCommandProposer({
          command: agent([
            "mv config.json config.json~ && sed 's/1/6/' config.json~ > config.json && echo 'backup written'",
            vim,
            'echo "DESCRIPTION: edit"',
          ]),
          cwd: ws,
          goal: 'g',
        });
        expect(await proposer.propose(context())).toEqual({ description: 'edit', changedFiles: ['config.json'] });
        expect(readFileSync(join(ws, 'config.json'), 'utf8')).toBe('{"lr": 7}\n');
        expect(log()).toContain('backup written');
        expect(log()).toContain('vim wrote');
        expect(log()).not.toMatch(/swap file/i);
        expect(log()).toMatch(/\[loop\] removed what the agent left beside its targets: config\.json~/);
        expect(tree()).toEqual(initialTree);
      },
    );

    it(
      'a non-target file beside a target stays read-only: writing, sed -i, ' +
        'deleting and renaming it are refused; a new file is removed after the ' +
        'call; ../outside.txt is refused',
      async () => {
        const proposer = createAgentCommandProposer({
          command: agent([
            'echo hacked > prepare.mjs || echo "refused: write prepare.mjs"',
            "sed -i 's/evaluation/hacked/' prepare.mjs || echo 'refused: sed -i prepare.mjs'",
            'rm -f src/data.py; [ -f src/data.py ] && echo "refused: rm src/data.py"',
            'mv prepare.mjs p2.mjs || echo "refused: mv prepare.mjs"',
            'echo "import os" > sitecustomize.py && echo "created sitecustomize.py"',
            'echo forged > ../outside.txt || echo "refused: ../outside.txt"',
            "sed -i 's/1/2/' config.json",
            'echo "DESCRIPTION: hostile"',
          ]),
          cwd: ws,
          goal: 'g',
        });
        expect(await proposer.propose(context())).toEqual({ description: 'hostile', changedFiles: ['config.json'] });
        expect(readFileSync(join(ws, 'prepare.mjs'), 'utf8')).toBe('// evaluation\n');
        expect(readFileSync(join(ws, 'src', 'data.py'), 'utf8')).toBe('rows = 1\n');
        expect(readFileSync(join(base, 'outside.txt'), 'utf8')).toBe('original\n');
        for (const line of [
          'refused: write prepare.mjs',
          'refused: sed -i prepare.mjs',
          'refused: rm src/data.py',
          'refused: mv prepare.mjs',
          'created sitecustomize.py',
          'refused: ../outside.txt',
        ])
          expect(log()).toContain(line);
        expect(tree()).toEqual(initialTree);
      },
    );

    it('a symlink beside a target that the agent replaces is put back as it was', async () => {
      symlinkSync('prepare.mjs', join(ws, 'link.mjs'));
      const proposer = createAgentCommandProposer({
        command: agent([
          'rm link.mjs && echo forged > link.mjs && echo "replaced link.mjs"',
          "sed -i 's/1/2/' config.json",
          'echo "DESCRIPTION: link"',
        ]),
        cwd: ws,
        goal: 'g',
      });
      await proposer.propose(context());
      expect(log()).toContain('replaced link.mjs');
      expect(lstatSync(join(ws, 'link.mjs')).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(ws, 'link.mjs'))).toBe('prepare.mjs');
      expect(readFileSync(join(ws, 'prepare.mjs'), 'utf8')).toBe('// evaluation\n');
    });

    it('a missing target can be created in a new folder; what else the agent puts there is removed', async () => {
      const proposer = createAgentCommandProposer({
        command: agent(['mkdir -p out && echo 7 > out/new.txt && echo junk > out/junk.txt', 'echo "DESCRIPTION: new"']),
        cwd: ws,
        goal: 'g',
      });
      expect(await proposer.propose(context(['config.json', 'out/new.txt']))).toEqual({
        description: 'new',
        changedFiles: ['out/new.txt'],
      });
      expect(readFileSync(join(ws, 'out', 'new.txt'), 'utf8')).toBe('7\n');
      expect(existsSync(join(ws, 'out', 'junk.txt'))).toBe(false);
    });

    it('the .git folder beside a target stays read-only', async () => {
      execFileSync('git', ['init', '-q'], { cwd: ws });
      const head = readFileSync(join(ws, '.git', 'HEAD'), 'utf8');
      const proposer = createAgentCommandProposer({
        command: agent([
          'echo "ref: refs/heads/evil" > .git/HEAD || echo "refused: .git/HEAD"',
          'rm -rf .git; [ -d .git ] && echo "refused: rm .git"',
          'echo "DESCRIPTION: git"',
        ]),
        cwd: ws,
        goal: 'g',
      });
      await proposer.propose(context());
      expect(readFileSync(join(ws, '.git', 'HEAD'), 'utf8')).toBe(head);
      expect(log()).toContain('refused: .git/HEAD');
      expect(log()).toContain('refused: rm .git');
    });

    it(
      'an agent whose edit the sandbox refused and that exits 0: the row says ' +
        'it changed nothing, quotes the refusal, and onNoChange says the sandbox ' +
        'refused a write',
      async () => {
        const heard: string[] = [];
        const proposer = createAgentCommandProposer({
          command: agent(["sed -i 's/evaluation/x/' prepare.mjs", 'echo "DESCRIPTION: tuned the evaluation"']),
          cwd: ws,
          goal: 'g',
          onNoChange: (m) => heard.push(m),
        });
        const proposal = await proposer.propose(context());
        expect(proposal.changedFiles).toEqual([]);
        expect(proposal.description).toMatch(
          new RegExp(
            String.raw`^tuned the evaluation \[agent exited 0 and changed no ` +
              String.raw`target; \.loop\/agent\.log ends: sed: cannot ` +
              String.raw`rename \.\/sed\w+: Device or resource busy \| DESCRIPTION: ` +
              String.raw`tuned the evaluation; a write was refused by the sandbox\]$`,
          ),
        );
        expect(heard[0]).toMatch(
          /changed none of config\.json, src\/model\.py; the last lines of .*agent\.log:\n    sed: /,
        );
        expect(heard[0]).toContain('a write was refused. It ran in the bwrap sandbox, writable only:');
      },
    );
  },
);
