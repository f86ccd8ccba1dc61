import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IterationRecord, LoopEvent } from '@loop/core';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runCli } from './cli.js';
import { createNotifyRules, notifySchema } from './notify.js';

const ev = (e: Record<string, unknown>): LoopEvent => e as unknown as LoopEvent;
const rec = (iteration: number, status: IterationRecord['status'], score: number | null): IterationRecord => ({
  iteration,
  candidateId: `c${iteration}`,
  score,
  status,
  description: `change ${iteration}`,
});

describe('notify rules', () => {
  it(
    'a crash streak and a plateau each notify once per streak; repair ' + 'attempts do not count; a keep resets both',
    () => {
      const rules = createNotifyRules(notifySchema.parse({ command: 'x', crashStreak: 2, plateau: 3 }), 'val_bpc');
      const sent = [
        ev({ type: 'baseline', record: rec(0, 'baseline', 5) }),
        ev({ type: 'crash', record: rec(1, 'crash', null), willRepair: true }),
        ev({ type: 'crash', record: rec(1, 'crash', null), willRepair: false }),
        ev({ type: 'crash', record: rec(2, 'crash', null), willRepair: false }),
        ev({ type: 'reverted', record: rec(3, 'reverted', 6) }),
        ev({ type: 'reverted', record: rec(4, 'reverted', 6) }),
        ev({ type: 'kept', record: rec(5, 'kept', 4) }),
        ev({ type: 'crash', record: rec(6, 'crash', null), willRepair: false }),
      ]
        .map(rules)
        .filter(Boolean);
      expect(sent.map((n) => [n!.event, n!.iteration])).toEqual([
        ['crash-streak', 2],
        ['plateau', 3],
      ]);
      expect(sent[1]!.message).toBe('loop: 3 iterations without a keep (best val_bpc 5)');
    },
  );

  it('only the events named in on are sent', () => {
    const rules = createNotifyRules(
      notifySchema.parse({ command: 'x', on: ['end'], crashStreak: 1, plateau: 1 }),
      'score',
    );
    expect(rules(ev({ type: 'crash', record: rec(1, 'crash', null), willRepair: false }))).toBeUndefined();
    const end = rules(
      ev({
        type: 'stopped',
        summary: {
          stop: { reason: 'max-iterations', message: 'reached 1 iterations' },
          iterations: 1,
          baseline: 5,
          best: 5,
          counts: { kept: 0, reverted: 0, rejected: 0, crash: 1 },
        },
      }),
    );
    expect(end?.message).toBe(
      'loop: stopped (max-iterations: reached 1 iterations) after 1 ' +
        'iterations; score 5 -> best 5; keep 0 discard 0 crash 1',
    );
  });
});

describe('notify in loop run (a real command, a real run)', () => {
  it(
    'the notify command gets the crash streak and the end, with the message ' +
      'on stdin and the event in its environment',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'loop-notify-'));
      const ws = join(root, 'ws');
      const git = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, encoding: 'utf8' });
      const out: string[] = [];
      const sink = { write: (s: string) => (out.push(s), true) } as unknown as NodeJS.WritableStream;
      try {
        execFileSync('mkdir', [ws]);
        writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: 0 }));
        // Every candidate crashes: only the baseline (x = 0) prints a score.
        writeFileSync(
          join(ws, 'eval.mjs'),
          "import { readFileSync } from 'node:fs';\nconst { x } = " +
            "JSON.parse(readFileSync('config.json', 'utf8'));\nif (x !== 0) " +
            "process.exit(3);\nconsole.log('score: 1');\n",
        );
        git('init', '-q', '-b', 'main');
        expect(await runCli(['init'], { stdout: sink, stderr: sink, cwd: ws, tty: false, fromClone: false })).toBe(0);
        const doc = parseDocument(readFileSync(join(ws, 'loop.config.yaml'), 'utf8'));
        // A wide space: three draws never repeat a config (a repeat is a duplicate row, not a crash, in auto-iterate).
        doc.setIn(['proposer'], {
          type: 'mutator',
          file: 'config.json',
          space: { x: { min: 1, max: 100000, integer: true } },
        });
        doc.setIn(['maxRepairAttempts'], 0);
        doc.setIn(['pauseAfterCrashes'], 10);
        doc.setIn(['notify'], {
          command: `{ echo "$LOOP_NOTIFY_EVENT $LOOP_ITERATION"; cat; } >> ${join(root, 'notes.txt')}`,
          crashStreak: 2,
        });
        writeFileSync(join(ws, 'loop.config.yaml'), doc.toString());
        git('add', '-A');
        git('commit', '-q', '-m', 'init');
        const code = await runCli(['run', '--max-iterations', '3'], {
          stdout: sink,
          stderr: sink,
          cwd: ws,
          tty: false,
          fromClone: false,
        });
        expect(code, out.join('')).toBe(0);
        const notes = readFileSync(join(root, 'notes.txt'), 'utf8').split('\n');
        expect(notes[0]).toBe('crash-streak 2');
        expect(notes[1]).toMatch(/^loop: 2 crashes in a row \(iteration 2: /);
        expect(notes[2]).toBe('end 3');
        expect(notes[3]).toMatch(/^loop: stopped \(max-iterations.*keep 0 discard 0 crash 3$/);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
});
