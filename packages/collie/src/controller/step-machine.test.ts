import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createScriptedAgent, type RunEndNotice } from '../index.js';
import { fixedAsker, fixtureAutoiter, fixtureDirs } from '../internal/autoiter-fixture.js';

let dirs: ReturnType<typeof fixtureDirs>;
beforeEach(() => (dirs = fixtureDirs()));
afterEach(() => dirs.cleanup());

/** A run whose Stage 3.2 ladder is exhausted: escalate, then notify, then status escalated. */
function blocked(notify: (n: RunEndNotice) => void) {
  const agent = createScriptedAgent(
    {
      discovery: ['x'],
      observe: ['## ISSUE-001\ntitle: db down\nseverity: 3\nblocking: true\n'],
      diagnose: ['root_cause: "db not running"\nfix_applied: "none"'],
    },
    { repeatLast: true },
  );
  return fixtureAutoiter(dirs, {
    asker: fixedAsker({ Q1: 'echo "Error: no database"; exit 3' }),
    agent,
    notifier: { name: 'flaky', notify },
  });
}

describe("collie's step() on core's step machine (issue 11)", () => {
  it(
    'a step that fails after an escalation was journaled done is redone by ' +
      'the next step() without escalating again; the interrupted notify runs ' +
      'once more; the journal holds both effects',
    async () => {
      const notes: string[] = [];
      let fail = true;
      const { a, escalations } = blocked((n) => {
        if (fail) {
          fail = false;
          throw new Error('notifier down');
        }
        notes.push(n.event);
      });
      let error: unknown;
      for (let i = 0; i < 20 && error === undefined; i += 1) await a.step().catch((e: unknown) => void (error = e));
      expect(String(error)).toContain('notifier down');
      expect(escalations).toHaveLength(1);
      const cursor = JSON.parse(readFileSync(join(a.paths.steps, 'cursor.json'), 'utf8')) as {
        machine: string;
        step: string | null;
      };
      expect(cursor).toMatchObject({ machine: 'collie', step: 'unit' }); // the unit is still in progress
      const journal = readFileSync(join(a.paths.steps, 'journal.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { t: string; effect: string });
      expect(journal.map((r) => `${r.t} ${r.effect}`)).toEqual([
        'intent iter-1/blocked/escalate',
        'done iter-1/blocked/escalate',
        'intent iter-1/blocked/notify',
      ]);
      const outcomes = await a.run();
      expect(outcomes[0]).toMatchObject({ kind: 'stage', stage: 'stage3.2', status: 'escalated' });
      expect(outcomes.at(-1)).toMatchObject({ kind: 'done', status: 'escalated' });
      expect(escalations).toHaveLength(1);
      expect(notes).toEqual(['blocker_unrecoverable']);
    },
  );

  it(
    'each step() is one finished run of the machine: the cursor counts the ' +
      'step() calls and ends with no step in progress',
    async () => {
      const { a } = fixtureAutoiter(dirs, { asker: fixedAsker() });
      const outcomes = await a.run();
      const cursor = JSON.parse(readFileSync(join(a.paths.steps, 'cursor.json'), 'utf8')) as {
        run: number;
        step: string | null;
        data: { outcome: unknown };
      };
      expect(cursor).toMatchObject({ run: outcomes.length, step: null, data: { outcome: outcomes.at(-1) } });
    },
  );
});
