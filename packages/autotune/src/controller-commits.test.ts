import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createRecordingCommitter,
  runController,
  runControllerIteration,
  type RoundWorker,
  type SyncCheck,
} from './index.js';
import { code, options, paths, removeWorkspace, setUpWorkspace, worker } from './controller-test-workspace.js';

beforeEach(setUpWorkspace);
afterEach(removeWorkspace);

describe('seed 004 step 4: sync check and commit policy', () => {
  it(
    'seed 004 step 4: a failed sync check aborts the round as stale: no ' +
      'evaluation, no attempt counted, one changelog entry',
    async () => {
      const calls: string[] = [];
      const syncCheck: SyncCheck = {
        name: 'remote-rebuild',
        verify: () => ({ ok: false, reason: 'remote is at abc123, expected def456' }),
      };
      const before = readFileSync(paths.scoreboard, 'utf8');
      const result = await runControllerIteration(options(worker({ b: 1 }, calls), { syncCheck }));
      expect(calls).toEqual(['improve 1']);
      expect(result.outcome).toBe('continue');
      expect(result.state.last_round).toMatchObject({ round: 1, outcome: 'stale', recommended_action: 'continue' });
      expect(result.state.last_round?.reason).toContain('remote is at abc123');
      expect(readFileSync(paths.scoreboard, 'utf8')).toBe(before);
      expect(readFileSync(paths.changelog, 'utf8')).toContain('- outcome: stale');
    },
  );

  it('seed 004 step 4: a sync check that throws is a stale round too, not a crash', async () => {
    const syncCheck: SyncCheck = {
      name: 'pull',
      verify: () => {
        throw new Error('ssh: connection refused');
      },
    };
    const result = await runControllerIteration(options(worker({ b: 1 }), { syncCheck }));
    expect(result.state.last_round).toMatchObject({ outcome: 'stale' });
    expect(result.state.last_round?.reason).toContain('ssh: connection refused');
  });

  it(
    'seed 004 commit policy: code is committed as "feat(agent): autotune ' +
      'round N — <summary>" before the sync check, artifacts after analysis',
    async () => {
      const order: string[] = [];
      const committer = createRecordingCommitter((r) => void order.push(`commit ${r.kind}`));
      const syncCheck: SyncCheck = { name: 's', verify: () => (order.push('sync'), { ok: true }) };
      const base = worker({ b: 1, c: 1, d: 1 });
      const w: RoundWorker = { ...base, evaluate: (ctx) => (order.push('evaluate'), base.evaluate(ctx)) };
      await runControllerIteration(options(w, { committer, syncCheck }));
      expect(order).toEqual(['commit code', 'sync', 'evaluate', 'commit artifacts', 'commit artifacts']);
      const [codeCommit, artifacts, completion] = committer.commits;
      expect(codeCommit).toEqual({
        kind: 'code',
        round: 1,
        message: 'feat(agent): autotune round 1 — patch b c d',
        files: [],
      });
      expect(artifacts?.message).toBe('chore(autotune): round 1 artifacts — stop_success');
      expect(artifacts?.files).toEqual([paths.loopState, paths.scoreboard, paths.changelog]);
      expect(completion?.message).toMatch(/^chore\(autotune\): loop complete — stop_success: /);
      expect(completion?.files).toEqual([paths.loopState]);
    },
  );

  it(
    'seed 004 commit policy: the exhausted round commits ' + 'cannot_handle_group.txt and issues.md with the artifacts',
    async () => {
      const committer = createRecordingCommitter();
      await runController(options(worker({}), { committer }));
      const last = committer.commits.filter((c) => c.kind === 'artifacts' && c.round === 3)[0];
      expect(last?.files).toEqual([paths.loopState, paths.scoreboard, paths.exclusions, paths.issues, paths.changelog]);
    },
  );

  it('seed 004 commit policy: a round without code changes makes no code commit', async () => {
    const committer = createRecordingCommitter();
    await runControllerIteration(
      options(worker({}, [], { improve: () => ({ summary: 'nothing', targets: ['b'], changed: false }) }), {
        committer,
      }),
    );
    expect(committer.commits.map((c) => c.kind)).toEqual(['artifacts']);
  });
});
