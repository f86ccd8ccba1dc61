import { describe, expect, it } from 'vitest';
import { createInterruptHandler, type InterruptOptions, type SetTimer } from './interrupt.js';
import { createWriteGate, gateRollbackWrites } from './write-gate.js';

/** A timer the test fires by hand: no sleeps. */
function manualTimer() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  const setTimer: SetTimer = (callback, ms) => {
    const id = next++;
    pending.set(id, { callback, ms });
    return () => pending.delete(id);
  };
  const fireAll = () => {
    const due = [...pending.values()];
    pending.clear();
    for (const t of due) t.callback();
  };
  return { setTimer, fireAll, pending };
}

const flush = async () => {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
};

function setup(over: Partial<InterruptOptions> = {}) {
  const calls: string[] = [];
  const exits: number[] = [];
  let settle!: () => void;
  const settled = new Promise<void>((r) => (settle = r));
  const timer = manualTimer();
  const handler = createInterruptHandler({
    abort: () => calls.push('abort'),
    killRunning: async () => void calls.push('kill'),
    settled,
    recover: async () => void calls.push('recover'),
    graceMs: 10_000,
    info: (l) => calls.push(`info: ${l}`),
    error: (l) => calls.push(`error: ${l.trim()}`),
    exit: (code) => void exits.push(code),
    codes: { interrupted: 130, restoreFailed: 4 },
    setTimer: timer.setTimer,
    ...over,
  });
  return { handler, calls, exits, settle, timer };
}

describe('Ctrl-C in loop run never resets the workspace itself', () => {
  it('the first Ctrl-C only aborts: the engine reverts the candidate through the rollback', () => {
    const s = setup();
    s.handler();
    expect(s.calls.filter((c) => !c.startsWith('info'))).toEqual(['abort']);
    expect(s.exits).toEqual([]);
  });

  it(
    'the second Ctrl-C kills the running command and waits for the engine; ' +
      'when it settles in time, the run’s own result decides (no recover, no ' +
      'exit here)',
    async () => {
      const s = setup();
      s.handler();
      s.handler();
      await flush();
      expect(s.calls.filter((c) => !c.startsWith('info'))).toEqual(['abort', 'kill']);
      expect(s.timer.pending.size).toBe(1);
      expect([...s.timer.pending.values()][0]!.ms).toBe(10_000);
      s.settle();
      await flush();
      expect(s.timer.pending.size).toBe(0);
      expect(s.calls).not.toContain('recover');
      expect(s.exits).toEqual([]);
    },
  );

  it('when the engine does not settle within the grace, the rollback’s recover runs, then exit 130', async () => {
    const s = setup();
    s.handler();
    s.handler();
    await flush();
    s.timer.fireAll();
    await flush();
    expect(s.calls.filter((c) => !c.startsWith('info'))).toEqual([
      'abort',
      'kill',
      'recover',
      'error: aborted: the run did not stop within 10 s; the workspace was ' +
        'reset to the last kept state through the rollback',
    ]);
    expect(s.exits).toEqual([130]);
  });

  it('a failed recover exits 4 (restore failed) and says loop resume recovers it', async () => {
    const s = setup({ recover: async () => Promise.reject(new Error('RESTORE_FAILED')) });
    s.handler();
    s.handler();
    await flush();
    s.timer.fireAll();
    await flush();
    expect(s.exits).toEqual([4]);
    expect(s.calls.at(-1)).toContain('loop resume');
  });

  it('a recover is a write and is never cut off: no exit until it lands, then exit 130', async () => {
    let finish!: () => void;
    const s = setup({ recover: () => new Promise<void>((r) => (finish = r)) });
    s.handler();
    s.handler();
    await flush();
    s.timer.fireAll(); // the engine's grace
    await flush();
    expect(s.timer.pending.size).toBe(0); // no second timer: recover is awaited, not raced
    expect(s.exits).toEqual([]);
    finish();
    await flush();
    expect(s.exits).toEqual([130]);
  });

  it('a third Ctrl-C exits 130 without recovering, and the second one’s later outcome exits nothing more', async () => {
    const s = setup();
    s.handler();
    s.handler();
    s.handler();
    await flush();
    expect(s.exits).toEqual([130]);
    s.timer.fireAll();
    await flush();
    expect(s.exits).toEqual([130]);
    expect(s.calls).not.toContain('recover');
  });
});

describe('Ctrl-C never exits while a rollback write is in flight (issue 12)', () => {
  it('the third Ctrl-C waits for the write in flight, lets no new write start, then exits', async () => {
    const writes = createWriteGate();
    const rollback = { revert: async (_cp: unknown, done: Promise<void>) => done, recover: async () => undefined };
    gateRollbackWrites(rollback, writes);
    const s = setup({ writes });
    let land!: () => void;
    const landed = new Promise<void>((r) => (land = r));
    const inFlight = rollback.revert(null, landed);
    expect(writes.inFlight()).toBe(1);
    s.handler();
    s.handler();
    s.handler();
    await flush();
    expect(s.exits).toEqual([]);
    expect(s.calls).toContain('info: interrupt: waiting for the git write in flight to land before exiting');
    let later = false;
    void rollback.revert(null, Promise.resolve()).then(() => (later = true));
    expect(writes.inFlight()).toBe(1); // the gate is closed: the new write never starts
    land();
    await inFlight;
    await flush();
    expect(s.exits).toEqual([130]);
    expect(later).toBe(false);
  });

  it(
    'the second Ctrl-C past the grace closes the gate, waits for the write ' +
      'in flight, then recovers through the gate and exits 130',
    async () => {
      const writes = createWriteGate();
      const order: string[] = [];
      const rollback = {
        keep: async (done: Promise<void>) => (await done, order.push('keep landed')),
        recover: async () => void order.push('recover'),
      };
      const { recover } = gateRollbackWrites(rollback, writes);
      const s = setup({ writes, recover: () => recover!('abc') });
      let land!: () => void;
      void rollback.keep(new Promise<void>((r) => (land = r)));
      s.handler();
      s.handler();
      await flush();
      s.timer.fireAll();
      await flush();
      expect(writes.closed()).toBe(true);
      expect(order).toEqual([]);
      expect(s.exits).toEqual([]);
      land();
      await flush();
      expect(order).toEqual(['keep landed', 'recover']);
      expect(s.exits).toEqual([130]);
    },
  );
});
