import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { acquireLock } from '../files/lock.js';
import { createStepMachine, type StepFunction, type StepMachineHooks } from './step-machine.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-step-machine-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Data = { n: number; seen: string[] };
const machine = (steps: Record<string, StepFunction<Data>>, hooks?: StepMachineHooks, start = Object.keys(steps)[0]!) =>
  createStepMachine<Data>({
    name: 'test',
    dir: join(dir, 'm'),
    start,
    steps,
    hooks,
    dataSchema: z.object({ n: z.number(), seen: z.array(z.string()) }),
  });
const initial = () => ({ n: 0, seen: [] });
const stopAt = (kind: string, effect?: string): StepMachineHooks => ({
  beforeWrite: (p) => {
    if (p.kind === kind && (effect === undefined || p.effect === effect)) throw new Error(`stop at ${kind}`);
  },
});

describe('transitions and the cursor', () => {
  it(
    'steps run in the order their transitions name, with the data each ' + 'leaves; the finished cursor has step null',
    async () => {
      const m = machine({
        a: (ctx) => ({ next: 'b', data: { ...ctx.data, seen: [...ctx.data.seen, 'a'] } }),
        b: (ctx) =>
          ctx.data.n < 2 ? { next: 'b', data: { n: ctx.data.n + 1, seen: [...ctx.data.seen, 'b'] } } : { finish: true },
      });
      const result = await m.run(initial);
      expect(result).toEqual({
        data: { n: 2, seen: ['a', 'b', 'b'] },
        run: 1,
        resumed: false,
        visited: ['a', 'b', 'b', 'b'],
      });
      expect(await m.cursor()).toMatchObject({ version: 1, machine: 'test', run: 1, visit: 4, step: null });
    },
  );

  it('a run after a finished one starts run 2 at the start step with fresh data and an emptied journal', async () => {
    let calls = 0;
    const m = machine({ a: async (ctx) => (await ctx.effect('e', () => ++calls), { finish: true }) });
    await m.run(initial);
    const second = await m.run(() => ({ n: 5, seen: [] }));
    expect(second).toMatchObject({ run: 2, resumed: false, data: { n: 5 } });
    expect(calls).toBe(2);
    expect(
      readFileSync(m.journalPath, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).run),
    ).toEqual([2, 2]);
  });

  it(
    'a step that throws leaves the cursor at that step; the next run resumes ' +
      'it (resumed true) and ignores the new initial data',
    async () => {
      let fail = true;
      const m = machine({
        a: () => ({ next: 'b', data: { n: 1, seen: ['a'] } }),
        b: (ctx) => {
          if (fail) throw new Error('boom');
          return { finish: true, data: { ...ctx.data, seen: [...ctx.data.seen, ctx.resumed ? 'b resumed' : 'b'] } };
        },
      });
      await expect(m.run(initial)).rejects.toThrow('boom');
      expect((await m.cursor())?.step).toBe('b');
      fail = false;
      const result = await m.run(() => ({ n: 99, seen: [] }));
      expect(result).toMatchObject({ resumed: true, visited: ['b'], data: { n: 1, seen: ['a', 'b resumed'] } });
    },
  );

  it(
    'a transition to an unknown step is CONFIG_INVALID; a start that is not ' + 'a step is CONFIG_INVALID at creation',
    async () => {
      await expect(machine({ a: () => ({ next: 'nowhere' }) }).run(initial)).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining('"nowhere"'),
      });
      expect(() => machine({ a: () => ({ finish: true }) }, undefined, 'zz')).toThrow(
        expect.objectContaining({ code: 'CONFIG_INVALID' }),
      );
    },
  );

  it(
    'data that fails dataSchema, from initial() or a step, is CONFIG_INVALID ' +
      'naming the field, and the cursor is not written with it',
    async () => {
      const m = machine({
        a: () => ({ next: 'b', data: { n: 'x' as unknown as number, seen: [] } }),
        b: () => ({ finish: true }),
      });
      await expect(m.run(() => ({ n: 0, seen: [1 as unknown as string] }))).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
        details: { field: 'data.seen.0' },
      });
      expect(await m.cursor()).toBeUndefined();
      await expect(m.run(initial)).rejects.toMatchObject({ code: 'CONFIG_INVALID', details: { field: 'data.n' } });
      expect((await m.cursor())?.step).toBe('a');
    },
  );

  it(
    'a cursor naming a step the machine lacks, of another machine, or with ' +
      'data failing the schema is STATE_CORRUPT naming the field',
    async () => {
      const m = machine({ a: () => ({ finish: true }) });
      const write = (c: object) =>
        writeFileSync(
          m.cursorPath,
          JSON.stringify({ version: 1, machine: 'test', run: 1, visit: 0, step: 'a', data: { n: 0, seen: [] }, ...c }),
        );
      await m.run(initial);
      write({ step: 'gone' });
      await expect(m.run(initial)).rejects.toMatchObject({ code: 'STATE_CORRUPT', details: { field: 'step' } });
      write({ machine: 'other' });
      await expect(m.run(initial)).rejects.toMatchObject({ code: 'STATE_CORRUPT', details: { field: 'machine' } });
      write({ data: { n: 'x', seen: [] } });
      await expect(m.run(initial)).rejects.toMatchObject({ code: 'STATE_CORRUPT', details: { field: 'data.n' } });
    },
  );

  it('the lock is held while stepping: a second machine on the same directory gets LOCK_HELD', async () => {
    const m = machine({ a: () => ({ finish: true }) });
    const lock = await acquireLock({ path: m.cursorPath });
    try {
      await expect(m.run(initial)).rejects.toMatchObject({
        code: 'LOCK_HELD',
        message: expect.stringContaining('another test is stepping'),
      });
    } finally {
      await lock.release();
    }
    expect(existsSync(m.cursorPath)).toBe(false);
  });
});

describe('effects: exactly once', () => {
  it(
    'an effect recorded done is not run again after a stop before the cursor ' +
      'write; its recorded result is returned',
    async () => {
      let runs = 0;
      const steps = {
        a: async (ctx: Parameters<StepFunction<Data>>[0]) => ({
          finish: true as const,
          data: { ...ctx.data, n: await ctx.effect('count', () => ++runs) },
        }),
      };
      await expect(machine(steps, stopAt('cursor')).run(initial)).rejects.toThrow('stop at cursor');
      const result = await machine(steps).run(initial);
      expect(runs).toBe(1);
      expect(result.data.n).toBe(1);
    },
  );

  it('a step visited twice in one run runs its effect once per visit', async () => {
    const log = join(dir, 'log');
    const m = machine({
      a: async (ctx) => (
        await ctx.effect('append', () => appendFileSync(log, `${ctx.data.n}\n`)),
        ctx.data.n < 2 ? { next: 'a', data: { ...ctx.data, n: ctx.data.n + 1 } } : { finish: true }
      ),
    });
    await m.run(initial);
    expect(readFileSync(log, 'utf8')).toBe('0\n1\n2\n');
  });

  it('an interrupted idempotent effect (intent, no done) is run again', async () => {
    let runs = 0;
    const steps = {
      a: async (ctx: Parameters<StepFunction<Data>>[0]) => (
        await ctx.effect('write', () => void runs++, { idempotent: true }),
        { finish: true as const }
      ),
    };
    await expect(machine(steps, stopAt('done')).run(initial)).rejects.toThrow();
    await machine(steps).run(initial);
    expect(runs).toBe(2);
  });

  it('reconcile decides an interrupted effect: done returns its result without running, not done runs it', async () => {
    for (const [already, expectedRuns] of [
      [true, 1],
      [false, 2],
    ] as const) {
      rmSync(join(dir, 'm'), { recursive: true, force: true });
      let runs = 0;
      const steps = {
        a: async (ctx: Parameters<StepFunction<Data>>[0]) => ({
          finish: true as const,
          data: {
            ...ctx.data,
            n: await ctx.effect('commit', () => (++runs, 7), {
              reconcile: () => (already ? { done: true, result: 7 } : { done: false }),
            }),
          },
        }),
      };
      await expect(machine(steps, stopAt('done')).run(initial)).rejects.toThrow();
      expect((await machine(steps).run(initial)).data.n).toBe(7);
      expect(runs).toBe(expectedRuns);
    }
  });

  it(
    'an interrupted effect that is neither idempotent nor reconcilable is ' +
      'refused with EFFECT_IN_DOUBT, and not run',
    async () => {
      let runs = 0;
      const steps = {
        a: async (ctx: Parameters<StepFunction<Data>>[0]) => (
          await ctx.effect('send', () => void runs++),
          { finish: true as const }
        ),
      };
      await expect(machine(steps, stopAt('effect')).run(initial)).rejects.toThrow('stop at effect');
      await expect(machine(steps).run(initial)).rejects.toMatchObject({
        code: 'EFFECT_IN_DOUBT',
        details: { step: 'a', effect: 'send', run: 1, visit: 0 },
      });
      expect(runs).toBe(0);
    },
  );

  it('an effect that throws leaves its intent open (an idempotent one is retried by the next run)', async () => {
    let fail = true;
    const steps = {
      a: async (ctx: Parameters<StepFunction<Data>>[0]) => ({
        finish: true as const,
        data: {
          ...ctx.data,
          n: await ctx.effect(
            'try',
            () => {
              if (fail) throw new Error('flaky');
              return 3;
            },
            { idempotent: true },
          ),
        },
      }),
    };
    await expect(machine(steps).run(initial)).rejects.toThrow('flaky');
    fail = false;
    expect((await machine(steps).run(initial)).data.n).toBe(3);
  });

  it('the same effect name twice in one visit is CONFIG_INVALID', async () => {
    const m = machine({
      a: async (ctx) => (await ctx.effect('x', () => 1), await ctx.effect('x', () => 2), { finish: true }),
    });
    await expect(m.run(initial)).rejects.toMatchObject({ code: 'CONFIG_INVALID', details: { effect: 'x' } });
  });

  it(
    'the live result is the JSON round trip of what the effect returned, ' + 'the same value a replay returns',
    async () => {
      let seen: unknown;
      const m = machine({
        a: async (ctx) => (
          (seen = await ctx.effect('obj', () => ({ at: new Date(0), gone: undefined, keep: 1 }))),
          { finish: true }
        ),
      });
      await m.run(initial);
      expect(seen).toEqual({ at: '1970-01-01T00:00:00.000Z', keep: 1 });
    },
  );
});
