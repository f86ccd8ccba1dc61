import { describe, expect, it } from 'vitest';
import type { MaybePromise, RollbackStrategy } from '@loop/core';

/**
 * What an adapter gives the conformance suite: a fresh rollback strategy over an artifact whose
 * whole state is one string, initially `'v0'`.
 */
export interface RollbackFixture {
  /** The strategy under test (already started: ready for `checkpoint`). */
  readonly rollback: RollbackStrategy;
  /** Edits the artifact so its state is `content` (what a proposer does). */
  readonly write: (content: string) => MaybePromise<void>;
  /** Reads the artifact's state. */
  readonly read: () => MaybePromise<string>;
  /** Removes temp dirs. */
  readonly cleanup?: () => MaybePromise<void>;
}

/**
 * The rollback conformance suite every adapter runs (in-memory, git reset, snapshot copy): the
 * rules of the `RollbackStrategy` contract as named tests.
 *
 * @example
 * describeRollbackStrategy('git-reset', async () => { ...; return { rollback, write, read, cleanup }; });
 */
export function describeRollbackStrategy(name: string, makeFixture: () => Promise<RollbackFixture>): void {
  const withFixture = (test: (f: RollbackFixture, skip: (note: string) => never) => Promise<void>) => {
    return async (context: { skip: (note?: string) => never }) => {
      const f = await makeFixture();
      try {
        await test(f, (note) => context.skip(note));
      } finally {
        await f.cleanup?.();
      }
    };
  };
  const commit = async (f: RollbackFixture, cp: { iteration: number; id: string }, attempt = 0) =>
    (await f.rollback.commit?.(cp, { iteration: cp.iteration, attempt, description: `edit ${cp.iteration}` })) ??
    undefined;

  describe(`rollback conformance: ${name}`, () => {
    it(
      'revert restores the checkpoint state',
      withFixture(async (f) => {
        const cp = await f.rollback.checkpoint(1);
        await f.write('v1');
        const id = await commit(f, cp);
        await f.rollback.revert(cp, { iteration: 1, ...(id ? { candidateId: id } : {}) });
        expect(await f.read()).toBe('v0');
      }),
    );

    it(
      'keep makes the candidate the next checkpoint',
      withFixture(async (f) => {
        const cp1 = await f.rollback.checkpoint(1);
        await f.write('v1');
        const id1 = await commit(f, cp1);
        const kept = await f.rollback.keep(cp1, id1);
        expect(kept).toBeTruthy();
        const cp2 = await f.rollback.checkpoint(2);
        expect(cp2.id).toBe(kept);
        await f.write('v2');
        const id2 = await commit(f, cp2);
        await f.rollback.revert(cp2, { iteration: 2, ...(id2 ? { candidateId: id2 } : {}) });
        expect(await f.read()).toBe('v1');
      }),
    );

    it(
      'revert is idempotent',
      withFixture(async (f) => {
        const cp = await f.rollback.checkpoint(1);
        await f.write('v1');
        const id = await commit(f, cp);
        const info = { iteration: 1, ...(id ? { candidateId: id } : {}) };
        await f.rollback.revert(cp, info);
        await f.rollback.revert(cp, info);
        expect(await f.read()).toBe('v0');
      }),
    );

    it(
      'distinct candidates get distinct ids',
      withFixture(async (f, skip) => {
        if (!f.rollback.commit) skip('this strategy has no commit');
        const cp1 = await f.rollback.checkpoint(1);
        await f.write('v1');
        const id1 = await commit(f, cp1);
        await f.rollback.revert(cp1, { iteration: 1, ...(id1 ? { candidateId: id1 } : {}) });
        const cp2 = await f.rollback.checkpoint(2);
        await f.write('v2');
        const id2 = await commit(f, cp2);
        expect(id1).not.toBe(id2);
        await f.rollback.revert(cp2, { iteration: 2, ...(id2 ? { candidateId: id2 } : {}) });
      }),
    );

    it(
      'a repair commit for the same checkpoint is reverted to the checkpoint too',
      withFixture(async (f) => {
        const cp = await f.rollback.checkpoint(1);
        await f.write('v1-broken');
        await commit(f, cp, 0);
        await f.write('v1-repaired');
        const id = await commit(f, cp, 1);
        await f.rollback.revert(cp, { iteration: 1, ...(id ? { candidateId: id } : {}) });
        expect(await f.read()).toBe('v0');
      }),
    );

    it(
      'restoreBest returns to the best kept state',
      withFixture(async (f, skip) => {
        if (!f.rollback.restoreBest) skip('this strategy has no restoreBest');
        const cp1 = await f.rollback.checkpoint(1);
        await f.write('v1');
        const best = await f.rollback.keep(cp1, await commit(f, cp1));
        const cp2 = await f.rollback.checkpoint(2);
        await f.write('v2');
        const id2 = await commit(f, cp2);
        await f.rollback.revert(cp2, { iteration: 2, ...(id2 ? { candidateId: id2 } : {}) });
        await f.rollback.restoreBest!(best);
        expect(await f.read()).toBe('v1');
      }),
    );

    it(
      'recover discards what an interrupted iteration left behind',
      withFixture(async (f, skip) => {
        if (!f.rollback.recover) skip('this strategy has no recover');
        const cp = await f.rollback.checkpoint(1);
        await f.write('v1-interrupted');
        await commit(f, cp);
        await f.rollback.recover!(cp.id);
        expect(await f.read()).toBe('v0');
      }),
    );
  });
}
