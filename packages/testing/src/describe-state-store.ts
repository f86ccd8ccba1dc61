import { describe, expect, it } from 'vitest';
import type { EngineState, MaybePromise, StateStore } from '@loop/core';

/**
 * What an implementation gives the state-store conformance suite: fresh, empty storage and a way
 * to open a store over it.
 */
export interface StateStoreFixture {
  /**
   * Opens a store over this fixture's storage. Called again, it opens a second store over the SAME
   * storage, as a resumed run does; a store kept in memory returns the same instance.
   */
  readonly open: () => MaybePromise<StateStore>;
  /**
   * Makes the stored state unreadable (writes something that is not JSON into the file). The suite
   * then expects `read` to throw `LoopError` `STATE_CORRUPT`. Omit it for a store without storage.
   */
  readonly corrupt?: () => MaybePromise<void>;
  /**
   * A store over a place it cannot write (its directory is a regular file), ready for the stop
   * sequence's final write. The suite expects writes to throw `LoopError` `STATE_WRITE_FAILED`.
   * Omit it for a store that cannot fail (in memory).
   */
  readonly unwritable?: () => MaybePromise<StateStore>;
  /**
   * True for a store whose writes after an iteration are best effort by design (autoresearch:
   * seed 002 checks only the final state.json write): a failed one is swallowed, and only the stop
   * sequence's write throws. @default false
   */
  readonly bestEffortWhileRunning?: boolean;
  /** Removes temp dirs. */
  readonly cleanup?: () => MaybePromise<void>;
}

/** A state after iteration 3 with every optional field the engine sets, scores at full precision. */
const RUNNING: EngineState = {
  version: 1,
  status: 'running',
  iteration: 3,
  direction: 'minimize',
  baseline: 0.1 + 0.2,
  best: 1 / 3,
  bestId: 'b'.repeat(40),
  counts: { kept: 1, reverted: 1, rejected: 0, crash: 1, halted: 0 },
  consecutiveNonImprovements: 2,
  consecutiveCrashes: 1,
  lastStatus: 'crash',
  lastLabel: 'timeout',
  baselineSamples: [0.3, 0.30000000000000004, 0.29999999999999993],
  baselineSpread: { n: 3, mean: 0.3, sd: 5.551115123125783e-17, mad: 0 },
  incumbentSamples: [1 / 3],
  startedAt: '2026-01-02T03:04:05.678Z',
  updatedAt: '2026-01-02T03:14:05.678Z',
};

/** The stop sequence's final state: what the last write of a run records. */
const STOPPED: EngineState = {
  ...RUNNING,
  status: 'stopped',
  iteration: 4,
  lastStatus: 'halted',
  lastLabel: 'restore-failed',
  counts: { ...RUNNING.counts, halted: 1 },
  updatedAt: '2026-01-02T03:24:05.678Z',
  stopReason: 'restore-failed',
  stopMessage: 'the revert of iteration 4 did not verify',
  halted: { status: 'restore-failed', note: 'the revert did not verify', code: 'RESTORE_FAILED' },
};

/**
 * The state-store conformance suite every `StateStore` runs (core's JSON and memory stores,
 * autoresearch's pipeline state.json): the rules of the contract as named tests. Rules on storage
 * (`corrupt`, `unwritable`) run only when the fixture has them.
 *
 * @example
 * describeStateStore('json', async () => {
 *   const dir = await mkdtemp(join(tmpdir(), 'state-'));
 *   const path = join(dir, 'state.json');
 *   return {
 *     open: () => createJsonStateStore(path),
 *     corrupt: () => writeFile(path, '{ "version": 1,'),
 *     unwritable: async () => {
 *       await writeFile(join(dir, 'file'), '');
 *       return createJsonStateStore(join(dir, 'file', 'state.json'));
 *     },
 *     cleanup: () => rm(dir, { recursive: true }),
 *   };
 * });
 */
export function describeStateStore(name: string, makeFixture: () => Promise<StateStoreFixture>): void {
  const withFixture = (test: (f: StateStoreFixture, skip: (note: string) => never) => Promise<void>) => {
    return async (context: { skip: (note?: string) => never }) => {
      const f = await makeFixture();
      try {
        await test(f, (note) => context.skip(note));
      } finally {
        await f.cleanup?.();
      }
    };
  };

  describe(`state store conformance: ${name}`, () => {
    it(
      'a store with nothing written (no file yet) reads undefined',
      withFixture(async (f) => {
        expect(await (await f.open()).read()).toBeUndefined();
      }),
    );

    it(
      'read returns exactly what the last write stored (full-precision scores, samples, optional fields)',
      withFixture(async (f) => {
        const store = await f.open();
        await store.write(RUNNING);
        expect(await store.read()).toEqual(RUNNING);
        await store.write(STOPPED);
        expect(await store.read()).toEqual(STOPPED);
      }),
    );

    it(
      'a later write replaces the earlier one whole: fields it does not set are gone',
      withFixture(async (f) => {
        const store = await f.open();
        await store.write(STOPPED);
        await store.write(RUNNING);
        const read = await store.read();
        expect(read).toEqual(RUNNING);
        expect(read).not.toHaveProperty('stopReason');
        expect(read).not.toHaveProperty('halted');
      }),
    );

    it(
      'the state survives reopening the store (a resumed run reads it)',
      withFixture(async (f) => {
        await (await f.open()).write(RUNNING);
        expect(await (await f.open()).read()).toEqual(RUNNING);
      }),
    );

    it(
      'a written state is a copy: changing the object afterwards does not change what is stored',
      withFixture(async (f) => {
        const store = await f.open();
        const state = structuredClone(RUNNING) as { -readonly [K in keyof EngineState]: EngineState[K] };
        await store.write(state);
        state.best = 42;
        (state.baselineSamples as number[]).push(99);
        expect(await (await f.open()).read()).toEqual(RUNNING);
      }),
    );

    it(
      'an unreadable store makes read throw STATE_CORRUPT',
      withFixture(async (f, skip) => {
        if (!f.corrupt) skip('this store has no storage to corrupt');
        await (await f.open()).write(RUNNING);
        await f.corrupt!();
        await expect((async () => (await f.open()).read())()).rejects.toMatchObject({ code: 'STATE_CORRUPT' });
      }),
    );

    it(
      "the stop sequence's write to a store that cannot write throws STATE_WRITE_FAILED",
      withFixture(async (f, skip) => {
        if (!f.unwritable) skip('this store cannot fail to write');
        const store = await f.unwritable!();
        await expect((async () => store.write(STOPPED))()).rejects.toMatchObject({ code: 'STATE_WRITE_FAILED' });
      }),
    );

    it(
      "an iteration's write to a store that cannot write throws STATE_WRITE_FAILED, unless documented as best effort",
      withFixture(async (f, skip) => {
        if (!f.unwritable) skip('this store cannot fail to write');
        const store = await f.unwritable!();
        const write = (async () => store.write(RUNNING))();
        if (f.bestEffortWhileRunning) await expect(write).resolves.toBeUndefined();
        else await expect(write).rejects.toMatchObject({ code: 'STATE_WRITE_FAILED' });
      }),
    );
  });
}
