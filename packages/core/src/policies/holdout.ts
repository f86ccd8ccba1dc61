import { z } from 'zod';
import { measure } from '../engine/measure.js';
import { LoopError, parseOptions } from '../contracts/errors.js';
import type { Guard, GuardVerdict } from '../contracts/guard.js';
import type { Harness } from '../contracts/harness.js';
import {
  appendHoldoutUse,
  ensureHoldoutStateDir,
  holdoutFingerprint,
  readHoldoutUses,
  type HoldoutUse,
  type HoldoutUseKind,
} from './holdout-store.js';
import type { LoopState } from '../contracts/loop-state.js';
import type { Scorer } from '../contracts/scorer.js';
import type { LoopSummary } from '../contracts/summary.js';
import { systemClock, type Clock, type Direction } from '../contracts/types.js';

/** The optional gate of a sealed holdout: each keep is checked on the holdout, `budget` times at most. */
export interface HoldoutGateOptions {
  /**
   * Holdout evaluations the gate may make in a run (the incumbent's first measurement included); then it stops gating.
   */
  budget: number;
  /**
   * A keep is blocked when its holdout score is worse than the incumbent's by more than this (score units). @default 0
   */
  margin?: number;
}

/** Options of {@link createHoldout}. */
export interface HoldoutOptions {
  /** The holdout's evaluation: e.g. a command harness run with a read-only `cwd` (core `readOnlyCwd`). */
  harness: Harness;
  /** Turns the holdout's run into a score. */
  scorer: Scorer;
  /** Which way the holdout's scores improve. */
  direction: Direction;
  /** What defines the holdout, for its fingerprint: its command (or a function's name). */
  command: string;
  /**
   * Absolute paths of its files (data, expected outputs, scripts): fingerprinted, and masked from the proposer by the
   * caller.
   */
  files: string[];
  /** Absolute folder of its results (`holdout.jsonl`, logs): outside the workspace (see `holdoutStateDir`). */
  stateDir: string;
  /** Identifies the run in `holdout.jsonl` (auto-iterate: the run branch); a resumed run continues its counts. */
  run: string;
  /** The gate on keeps. @default none (only the final score and on-demand uses) */
  gate?: HoldoutGateOptions;
  /**
   * Hears one line per use, without any holdout score (the user's terminal may be a file the proposer reads). @default
   * nothing
   */
  onNotice?: (message: string) => void;
  /** For the use times. @default systemClock */
  clock?: Clock;
}

/** A sealed holdout (issue 33): a second evaluation scored where the proposer cannot read it. */
export interface Holdout {
  /** Where its results go. */
  readonly stateDir: string;
  /**
   * Creates the state folder, takes the fingerprint and reads this run's earlier uses (a resume). Call once before the
   * loop.
   */
  readonly start: () => Promise<void>;
  /**
   * Evaluates the holdout on the workspace's current state and records the use (count, kind,
   * score) in `holdout.jsonl`. @throws {LoopError} `HARNESS_TAMPERED` when the fingerprint changed since `start`.
   */
  readonly evaluate: (
    kind: HoldoutUseKind,
    at: { iteration: number; id?: string; visible?: number },
    signal?: AbortSignal,
  ) => Promise<HoldoutUse>;
  /**
   * The gate as a core `Guard` (put it last among the guards: it assumes a pass is a keep):
   * `beforeEdit` measures the incumbent once (the workspace is at the incumbent then),
   * `afterScore` measures the candidate and rejects the keep when it is worse than the incumbent
   * by more than `margin`. When the budget is spent it says so once and stops gating. `undefined` without a gate.
   */
  readonly guard: Guard | undefined;
  /** The engine's `onStop` seam: after `restoreBest`, the final sealed score of the best state. */
  readonly onStop: (summary: LoopSummary, state: LoopState) => Promise<void>;
  /** This run's uses so far. */
  readonly uses: () => readonly HoldoutUse[];
}

/** zod schema of {@link HoldoutOptions}. */
export const holdoutOptionsSchema = z
  .object({
    harness: z.custom<Harness>((h) => typeof (h as Harness)?.run === 'function', 'harness must have run()'),
    scorer: z.custom<Scorer>((s) => typeof (s as Scorer)?.score === 'function', 'scorer must have score()'),
    direction: z.enum(['minimize', 'maximize']),
    command: z.string().min(1),
    files: z.array(z.string().min(1)).min(1, 'name at least one holdout file'),
    stateDir: z
      .string()
      .min(1)
      .refine((p) => p.startsWith('/'), 'stateDir must be absolute'),
    run: z.string().min(1),
    gate: z
      .object({ budget: z.number().int().positive(), margin: z.number().nonnegative().default(0) })
      .strict()
      .optional(),
    onNotice: z.custom<(m: string) => void>((f) => f === undefined || typeof f === 'function').optional(),
    clock: z.custom<Clock>((c) => c === undefined || typeof (c as Clock)?.now === 'function').optional(),
  })
  .strict();

/**
 * A sealed holdout: `evaluate` runs its harness through core's `measure` on the current state
 * and appends the use to `<stateDir>/holdout.jsonl`; `guard` is the optional keep gate with a
 * counted budget; `onStop` scores the best state when the run stops. It records nothing in the
 * loop's rows, events or state: what the proposer can read never holds a holdout score. Sealing
 * the files from the proposer is the caller's part (`SandboxOptions.hidden`, `checkHoldoutSeal`).
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options.
 */
export function createHoldout(options: HoldoutOptions): Holdout {
  const o = parseOptions(holdoutOptionsSchema, options, 'holdout');
  const clock = o.clock ?? systemClock;
  const notice = o.onNotice ?? (() => undefined);
  let fingerprint: string | undefined;
  let uses: HoldoutUse[] = [];
  let incumbent: number | undefined;
  let spentSaid = false;

  const gateUses = () => uses.filter((u) => u.kind === 'gate' || u.kind === 'gate-incumbent').length;
  const worse = (candidate: number, inc: number) =>
    (o.direction === 'minimize' ? candidate - inc : inc - candidate) > (o.gate?.margin ?? 0);

  const evaluateWith = async (
    kind: HoldoutUseKind,
    at: { iteration: number; id?: string; visible?: number },
    signal: AbortSignal | undefined,
    decorate: (u: HoldoutUse) => HoldoutUse = (u) => u,
  ): Promise<HoldoutUse> => {
    if (fingerprint === undefined) await start();
    const now = await holdoutFingerprint(o.command, o.files);
    if (now !== fingerprint) {
      throw new LoopError(
        'HARNESS_TAMPERED',
        `[loop] [holdout] the holdout's command or files changed since the run ` +
          `started (${o.files.join(', ')}); restore them, or start a new run`,
      );
    }
    const use = uses.length + 1;
    const m = await measure(
      o.harness,
      o.scorer,
      { iteration: at.iteration, signal: signal ?? new AbortController().signal, seed: 0, repeat: 0 },
      clock,
    );
    const gate =
      kind === 'gate' || kind === 'gate-incumbent' ? { gateUse: gateUses() + 1, gateBudget: o.gate?.budget } : {};
    const record: HoldoutUse = {
      run: o.run,
      use,
      kind,
      iteration: at.iteration,
      ...(at.id !== undefined ? { id: at.id } : {}),
      ...(at.visible !== undefined ? { visible: at.visible } : {}),
      ...(m.result.ok ? { score: m.result.value } : { error: m.result.reason }),
      ...gate,
      at: new Date(clock.now()).toISOString(),
    };
    const final = decorate(record);
    uses.push(final);
    await appendHoldoutUse(o.stateDir, final);
    return final;
  };
  const evaluate: Holdout['evaluate'] = (kind, at, signal) => evaluateWith(kind, at, signal);

  const start = async () => {
    await ensureHoldoutStateDir(o.stateDir);
    fingerprint = await holdoutFingerprint(o.command, o.files);
    uses = await readHoldoutUses(o.stateDir, o.run);
    const lastGate = uses.findLast(
      (u) => (u.kind === 'gate-incumbent' || (u.kind === 'gate' && !u.blocked)) && u.score !== undefined,
    );
    incumbent = lastGate?.score;
  };

  const spent = (): boolean => {
    if (!o.gate || gateUses() < o.gate.budget) return false;
    if (!spentSaid)
      notice(
        `[loop] [holdout] gate: its budget of ${o.gate.budget} uses is spent; keeps are no longer gated by the holdout`,
      );
    spentSaid = true;
    return true;
  };

  const guard: Guard | undefined = o.gate
    ? {
        name: 'holdout-gate',
        beforeEdit: async ({ iteration, signal }) => {
          if (incumbent !== undefined || spent()) return undefined;
          const u = await evaluate('gate-incumbent', { iteration: iteration - 1 }, signal);
          incumbent = u.score;
          notice(
            `[loop] [holdout] gate use ${u.gateUse} of ${o.gate!.budget}: the ` +
              `incumbent measured (score in ${o.stateDir})`,
          );
          return undefined;
        },
        afterScore: async ({ iteration, score, signal }): Promise<GuardVerdict | undefined> => {
          if (spent()) return undefined;
          const blockedBy = (u: HoldoutUse) =>
            u.score === undefined || (incumbent !== undefined && worse(u.score, incumbent));
          const u = await evaluateWith('gate', { iteration, visible: score.value }, signal, (r) => ({
            ...r,
            blocked: blockedBy(r),
            ...(incumbent !== undefined ? { incumbent } : {}),
          }));
          const blocked = u.blocked === true;
          notice(
            `[loop] [holdout] gate use ${u.gateUse} of ${o.gate!.budget}: ` +
              `iteration ${iteration} ${blocked ? 'kept back' : 'passed'}`,
          );
          if (!blocked) {
            incumbent = u.score;
            return undefined;
          }
          return {
            action: 'reject',
            note: `kept back by the sealed holdout (gate use ${u.gateUse} of ${o.gate!.budget})`,
          };
        },
      }
    : undefined;

  const onStop: Holdout['onStop'] = async (summary, state) => {
    if (state.history.length === 0) return;
    const best = state.history.findLast(
      (r) => r.candidateId === summary.bestId && (r.status === 'kept' || r.status === 'baseline'),
    );
    const at = {
      iteration: best?.iteration ?? 0,
      ...(summary.bestId ? { id: summary.bestId } : {}),
      visible: summary.best,
    };
    const u = await evaluate('final', at);
    notice(
      u.score === undefined
        ? `[loop] [holdout] the final holdout run of the best state gave no score (${u.error ?? 'no score'}; ` +
            `use ${u.use}, recorded in ${o.stateDir})`
        : `[loop] [holdout] final sealed score of the best state written ` +
            `to ${o.stateDir} (use ${u.use}; loop status shows it)`,
    );
  };

  return { stateDir: o.stateDir, start, evaluate, guard, onStop, uses: () => uses };
}
