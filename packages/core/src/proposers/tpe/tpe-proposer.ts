import { z } from 'zod';
import { parseOptions } from '../../contracts/errors.js';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import type { Proposal, ProposalContext, Proposer } from '../../contracts/proposer.js';
import type { ConfigAdapter } from './config-adapter.js';
import { describeChanges, type ParameterChange } from './description.js';
import type { GpHyperparameters } from './gp.js';
import type { ConstraintsFunction, ObjectiveSpec } from '../../policies/pareto-math.js';
import { rebuildObservations, type ObservationFacts } from './observations.js';
import { sameValue, tpeParameterSchema, toDimensions, type TpeParameter } from './space.js';
import { chooseConfig } from './tpe-step.js';
import type { TpeSettings } from './tpe-settings.js';

/** Options of {@link createTpeProposer}. */
export interface TpeProposerOptions {
  /** Where the config is read and written: `createConfigFileAdapter` (JSON or YAML) or `createMemoryConfigAdapter`. */
  readonly config: ConfigAdapter;
  /** The parameters it searches; other keys of the config are never touched. */
  readonly space: Readonly<Record<string, TpeParameter>>;
  /**
   * Seed of the proposals. Each proposal draws from `createSeededRandom` seeded with (seed,
   * iteration, attempt), so a resumed run proposes what the uninterrupted run would have. @default 1
   */
  readonly seed?: number;
  /**
   * Evaluated rows (not counting the baseline unless `useBaseline`) before the model is used; until then, a Latin
   * hypercube design. @default 6
   */
  readonly startup?: number;
  /**
   * Candidates drawn from the good-points density per proposal; the one with the highest l(x)/g(x) is proposed.
   * @default 48
   */
  readonly candidates?: number;
  /** Fraction of the evaluated rows that are "good" (at least 1, at most 25). @default 0.15 */
  readonly gamma?: number;
  /** Fraction of the candidates drawn around the incumbent with a narrower kernel (local refinement). @default 0.25 */
  readonly local?: number;
  /**
   * Fraction of proposals (after the startup) that refine the incumbent instead: one or two
   * parameters moved by a step that shrinks with every row since the best was found (to no less
   * than `minStep`). @default 0.5
   */
  readonly refine?: number;
  /**
   * Learn from crashes: a crashed config joins the "bad" density, and a candidate whose nearest
   * evaluated neighbour (within 0.25 of the normalised space) crashed is not proposed. With false,
   * crashes are ignored by the model (as Optuna ignores failed trials). @default true
   */
  readonly avoidCrashes?: boolean;
  /**
   * Share of the model proposals (not refinement steps) drawn per parameter from independent
   * 1-D densities (Optuna's default, strong when the objective is close to a sum over parameters);
   * the rest use the joint density (which keeps interactions such as adam wanting another lr).
   * @default 0.4 when the space has a categorical parameter, else 0 (on Branin and Hartmann-6,
   *   continuous and far from a sum over parameters, it lost: 0.83x and 1.03x of Optuna's regret at
   *   30 evaluations with it, 0.44x and 0.91x without)
   */
  readonly univariate?: number;
  /**
   * Let the baseline row (the config the run started from) join the model. Off by default: it is a
   * hand-picked point, not a draw of the design, and counting it among the few good rows anchors
   * the model on its categories (on the benchmark's demo-like space its optimizer was evaluated
   * 354 times in 900 against 242 without it, and the run ended on it more often). It is still never
   * proposed again. @default false when the space has a categorical parameter, else true (a
   * continuous start config carries no category to anchor on and is one more informative row)
   */
  readonly useBaseline?: boolean;
  /**
   * Smallest refinement step, in normalised units (0-1 per parameter): under noise, steps smaller
   * than this only re-roll the noise around a lucky incumbent. @default 0.01
   */
  readonly minStep?: number;
  /**
   * Refinement moves drawn per refinement step; the one with the highest l(x)/g(x) is proposed (1:
   * the first move, unscored). Two let the model veto the worse of two local moves without making
   * the local search greedy: on the benchmark's tuned objectives 2 gave a geometric mean of 0.50x
   * Optuna's regret against 0.56x with 1 and 0.58x with 4 (4 lost under noise at 100 evaluations,
   * where the good rows include lucky ones). @default 2
   */
  readonly refineCandidates?: number;
  /**
   * Refinement steps centre on the good row whose neighbourhood (the rows within this normalised
   * distance, an RMS over the active parameters with a category change counting 1, itself
   * included) has the lowest mean loss, instead of on the single lowest row: under noise the lowest
   * row is often a lucky draw, and its refinements (near-duplicates, which differ mostly by noise)
   * pull its mean back up. 0: always the lowest row. Rows that close only appear after steps have
   * shrunk, so early search is mostly unchanged. @default 0.01 when the space has a categorical
   *   parameter, else 0. Measured (proposers bench, σ 0.02, 100 evaluations, seeds 1-60): on the
   *   demo-like space 0.51x Optuna's median regret against 0.71x without; on the three held-back
   *   mixed spaces 1.09x / 1.05x / 1.03x against 1.31x / 1.25x / 1.13x; on Branin and Hartmann-6
   *   (continuous) it did not help (0.25x / 0.76x against 0.23x / 0.68x), hence off there.
   */
  readonly robustRadius?: number;
  /**
   * How model steps choose: `parzen` ranks candidates by l(x)/g(x) (TPE); `gp` ranks the good
   * density's draws, refinement and local moves by expected improvement under a Gaussian process
   * fitted to the rows (see `fitGaussianProcess`). @default 'gp'
   */
  readonly surrogate?: 'parzen' | 'gp';
  /** With `surrogate: 'gp'`: evaluated rows before the GP ranks candidates; TPE steps until then. @default 0 */
  readonly gpStart?: number;
  /**
   * Constraints, Optuna-style (`TPESampler(constraints_func=...)`): for a scored row, one value per
   * constraint (`<= 0` feasible; read the metrics from `record.data.metrics`), or `undefined` when
   * the row has none (counted feasible). The model then ranks every feasible row before every
   * infeasible one (infeasible rows by total violation, so they are "bad"), the GP surrogate
   * multiplies expected improvement by a second GP's probability of feasibility (constrained EI),
   * and refinement centres on the best feasible row: proposals leave the infeasible region. The
   * proposer never decides a keep: pair it with a keep policy that blocks infeasible candidates.
   * @default none
   */
  readonly constraints?: ConstraintsFunction;
  /**
   * Several objectives (two or more named metrics of `record.data.metrics` with directions): the
   * model ranks rows by non-domination rank, ties by a random-weight augmented Chebyshev
   * scalarisation drawn per proposal (MOTPE's split; ParEGO's scalarisation for the GP), so the
   * proposals spread along the Pareto front and raise its hypervolume. The row's score is not
   * used by the model; rows missing a metric are left out. @default none (the score is the objective)
   */
  readonly objectives?: readonly ObjectiveSpec[];
  /**
   * The cost of a finished row (training seconds, dollars: any positive unit; read it from
   * `record.data.metrics`), or `undefined` when the row has none (a pruned or crashed run). With
   * `surrogate: 'gp'` and three rows with a cost, a second GP models log cost and, among the
   * candidates with at least half the best expected improvement, the highest expected improvement
   * per predicted cost wins (EI per second, Snoek et al. 2012, as a tie-break: plain EI per second
   * proposed cheap hopeless configs on the ML demo). Not used by TPE (`parzen`) steps. @default none
   */
  readonly cost?: (record: IterationRecord) => number | undefined;
}

/** zod schema of {@link TpeProposerOptions}. */
export const tpeProposerOptionsSchema = z.object({
  config: z.custom<ConfigAdapter>(
    (c) => typeof (c as ConfigAdapter)?.read === 'function' && typeof (c as ConfigAdapter)?.write === 'function',
    'config must be a ConfigAdapter (read, write)',
  ),
  space: z
    .record(z.string(), tpeParameterSchema)
    .refine((s) => Object.values(s).some((p) => !('fixed' in p)), 'space must name at least one searched parameter'),
  seed: z.number().int().default(1),
  startup: z.number().int().min(1).default(6),
  candidates: z.number().int().min(1).default(48),
  gamma: z.number().gt(0).max(1).default(0.15),
  local: z.number().min(0).max(1).default(0.25),
  refine: z.number().min(0).max(1).default(0.5),
  avoidCrashes: z.boolean().default(true),
  univariate: z.number().min(0).max(1).optional(),
  useBaseline: z.boolean().optional(),
  minStep: z.number().gt(0).max(0.5).default(0.01),
  refineCandidates: z.number().int().min(1).default(2),
  robustRadius: z.number().min(0).max(1).optional(),
  surrogate: z.enum(['parzen', 'gp']).default('gp'),
  gpStart: z.number().int().min(0).default(0),
  cost: z
    .custom<(record: IterationRecord) => number | undefined>(
      (f) => typeof f === 'function',
      'cost must be a function (record) => number | undefined',
    )
    .optional(),
  constraints: z
    .custom<ConstraintsFunction>(
      (f) => typeof f === 'function',
      'constraints must be a function (record) => number[] | undefined',
    )
    .optional(),
  objectives: z
    .array(z.object({ metric: z.string().min(1), direction: z.enum(['minimize', 'maximize']) }))
    .min(2, 'objectives needs at least 2 metrics')
    .optional(),
});

/** The most earlier candidates of its batch a proposal counts as pending (a batch holds at most 256). */
const MAX_BATCH_LIES = 255;

/**
 * A model-based proposer: a Tree-structured Parzen Estimator (Bergstra et al. 2011) over the run's
 * own rows, with a joint (multivariate) kernel and a share of candidates drawn near the incumbent.
 *
 * Each proposal: rebuild every evaluated config from `context.history` (the row descriptions are
 * the durable record, see `rebuildObservations`), split them into the best `gamma` ("good") and
 * the rest plus every crash ("bad"), fit a Parzen density to each, draw `candidates` configs from
 * the good density (and some near the incumbent), drop those already evaluated or whose nearest
 * evaluated neighbour crashed, and write the one with the highest good/bad density ratio. It may
 * change several parameters at once; the description names every change
 * (`lr 0.0003 -> 0.0006, optimizer sgd -> adam`). Integer and log ranges are respected, floats are
 * written with 5 significant digits, ascending numeric lists are searched as ordered, other lists as
 * categories, `fixed` parameters are written as given, and a parameter with `when` is only changed
 * while its condition holds.
 *
 * Parallel batches (`LoopOptions.parallel`): the K proposals of a batch are asked with the same
 * history; each one counts the batch's earlier candidates (the iterations after the last row and
 * before its own) as evaluated and "bad" (a constant liar, Ginsbourger et al. 2010, as Optuna's
 * `constant_liar`), so a batch never proposes one config twice and spreads over the space (the
 * design's next rows, other candidates). Those earlier candidates are the configs this proposer
 * chose for them, or, for one it has not chosen (a fresh proposer), the same computation from the
 * same seed, history and config, so a proposal
 * depends only on the seed, the history and its iteration: not on the order its batch is asked in,
 * which working copy is ready first, or the machine's load (issue 32 item 4), and a resumed run (a
 * fresh proposer) proposes exactly the candidates of the interrupted batch, so a worker pool's
 * idempotent job ids match and finished jobs are reused (item 17). At most 255 earlier candidates
 * count (a batch holds at most 256). On the async schedule (`parallel.schedule: 'async'`) a
 * candidate is proposed while earlier ones run from older rows: those still running count as pending
 * at the configs this proposer wrote for them (computed again only by a fresh proposer), and those
 * whose run ended before their row (`ProposalContext.finished`) count as evaluated. Each proposal's
 * record carries its full config (`data.params`), which places its row exactly in later models.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options (names the parameter).
 * @throws {LoopError} `PROPOSER_FAILED` from `propose()` when the config cannot be read (a crash row).
 */
export function createTpeProposer(options: TpeProposerOptions): Proposer {
  const o = parseOptions(tpeProposerOptionsSchema, options, 'tpe-proposer');
  const dims = toDimensions(o.space);
  const keys = new Set(dims.map((d) => d.name));
  const categorical = dims.some((d) => d.kind === 'categorical');
  const settings: TpeSettings = {
    seed: o.seed,
    startup: o.startup,
    candidates: o.candidates,
    gamma: o.gamma,
    local: o.local,
    refine: o.refine,
    avoidCrashes: o.avoidCrashes,
    univariate: o.univariate ?? (categorical ? 0.4 : 0),
    useBaseline: o.useBaseline ?? !categorical,
    minStep: o.minStep,
    refineCandidates: o.refineCandidates,
    robustRadius: o.robustRadius ?? (categorical ? 0.01 : 0),
    surrogate: o.surrogate,
    gpStart: o.gpStart,
  };
  // Calls made at once run one after another, so a batch's configs are computed once.
  let previous: Promise<unknown> = Promise.resolve();
  // The config of each iteration not yet in the history (attempt 0), by iteration: the one this
  // proposer wrote, or computed again for a candidate a fresh proposer did not write (a resume).
  const proposed = new Map<number, Record<string, unknown>>();
  // GP hyperparameters by the rows they were fitted on (a cache of a pure function; see `hyperparameterPrefix`).
  const fitted = new Map<string, GpHyperparameters>();
  const facts: ObservationFacts = {
    ...(o.constraints ? { constraints: o.constraints } : {}),
    ...(o.objectives ? { objectives: o.objectives } : {}),
    ...(o.cost ? { cost: o.cost } : {}),
  };
  const proposeOne = async (context: ProposalContext): Promise<Proposal> => {
    const current = await o.config.read(context);
    const finished = context.finished ?? [];
    const observations = rebuildObservations(context.history, current, keys, context.direction, facts, finished);
    // The batch: every iteration after the last row. Those before this one and not finished are pending.
    const last = Math.max(0, ...context.history.map((r) => r.iteration));
    const done = new Set(finished.map((r) => r.iteration));
    for (const i of proposed.keys()) if (i <= last) proposed.delete(i);
    const configOf = (iteration: number, attempt: number, pending: Record<string, unknown>[]) =>
      chooseConfig(dims, current, observations, settings, iteration, attempt, pending, fitted);
    const pending: Record<string, unknown>[] = [];
    for (let i = Math.max(last + 1, context.iteration - MAX_BATCH_LIES); i < context.iteration; i++) {
      if (done.has(i)) continue;
      // What this proposer wrote for it (on the async schedule, from older rows); else the same
      // computation again (a fresh proposer after a resume proposes the interrupted batch's configs).
      const earlier = proposed.get(i) ?? configOf(i, 0, [...pending]);
      proposed.set(i, earlier);
      pending.push(earlier);
    }
    // A repair attempt (attempt > 0) draws anew, with the same pending candidates.
    const { iteration, attempt } = context;
    const next = (attempt === 0 ? proposed.get(iteration) : undefined) ?? configOf(iteration, attempt, pending);
    if (attempt === 0) proposed.set(iteration, next);
    const changes: ParameterChange[] = dims
      .filter((d) => !sameValue(next[d.name], current[d.name]))
      .map((d) => ({ key: d.name, from: current[d.name], to: next[d.name] }));
    await o.config.write(next, context);
    const params = Object.fromEntries(
      dims.flatMap((d) => (next[d.name] === undefined ? [] : [[d.name, next[d.name]]])),
    );
    return {
      description: describeChanges(changes),
      ...(o.config.path ? { changedFiles: [o.config.path] } : {}),
      data: { params },
    };
  };
  return {
    name: 'tpe',
    propose: (context) => {
      const turn = previous.then(() => proposeOne(context));
      previous = turn.catch(() => undefined);
      return turn;
    },
  };
}
