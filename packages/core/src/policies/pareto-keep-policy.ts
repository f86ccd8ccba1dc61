import { z } from 'zod';
import { parseOptions } from '../contracts/errors.js';
import type { CandidateData } from '../contracts/iteration-record.js';
import type { KeepDecision, KeepInput, KeepPolicy } from '../contracts/keep-policy.js';
import { paretoFront, sameLosses } from './pareto-front.js';
import {
  dominates,
  objectiveLosses,
  totalViolation,
  type ConstraintsFunction,
  type ObjectiveSpec,
} from './pareto-math.js';

/** Options of {@link paretoKeep}. */
export interface ParetoKeepOptions {
  /** Two or more objectives: named metrics of the run's record (`data.metrics`) and their directions. */
  readonly objectives: readonly ObjectiveSpec[];
  /**
   * Which candidate becomes the incumbent (the state the loop continues from):
   * - `scalarised`: one whose weighted scalarisation is strictly lower than the incumbent's: the sum
   *   over objectives of `weight * loss / |baseline value|` (loss = the value, negated when
   *   maximised; a baseline value of 0 divides by 1). Scale-free, fixed for the whole run.
   * - `non-dominated`: every candidate that adds a non-dominated point to the front.
   * @default 'scalarised'
   */
  readonly incumbent?: 'scalarised' | 'non-dominated';
  /** One weight per objective (>= 0) for the `scalarised` rule. @default 1 each */
  readonly weights?: readonly number[];
  /** A state whose total violation is above 0 is never kept and never on the front. @default none */
  readonly constraints?: ConstraintsFunction;
}

/** zod schema of {@link ParetoKeepOptions}. */
export const paretoKeepOptionsSchema = z
  .object({
    objectives: z
      .array(z.object({ metric: z.string().min(1), direction: z.enum(['minimize', 'maximize']) }))
      .min(2, 'objectives needs at least 2 metrics'),
    incumbent: z.enum(['scalarised', 'non-dominated']).default('scalarised'),
    weights: z.array(z.number().min(0)).optional(),
    constraints: z
      .custom<ConstraintsFunction>((f) => typeof f === 'function', 'constraints must be a function')
      .optional(),
  })
  .refine((o) => !o.weights || o.weights.length === o.objectives.length, {
    message: 'weights needs one number per objective',
    path: ['weights'],
  });

/** What {@link paretoKeep} records in the candidate's row under `data.pareto`. */
export interface ParetoRecord {
  /** True when no evaluated feasible state dominates (or equals) the candidate: it joined the front. */
  readonly nonDominated: boolean;
  /** Iterations of the front's states the candidate dominates (they left the front). */
  readonly dominates: readonly number[];
  /** The candidate's weighted scalarisation (lower is better; see `ParetoKeepOptions.incumbent`). */
  readonly scalarised: number;
  /** The front's size with the candidate. */
  readonly frontSize: number;
}

/**
 * Multi-objective keep policy: the run keeps a Pareto set. Every evaluated state (baseline, kept
 * and reverted rows) that carries all objectives and meets the constraints is a point; the front
 * is rebuilt from the rows each time (`paretoFront`, from `KeepInput.history`), so it is the same
 * after a resume. A reverted state stays reachable by its row's `candidateId` (rollback-git keeps
 * `refs/loop/discarded/<iteration>`). Each decision records in the row's `data.pareto`
 * ({@link ParetoRecord}) whether the candidate added a non-dominated point and which points it
 * pushed off the front, and says so in its reason. The incumbent follows the `incumbent` rule
 * (a weighted scalarisation by default). The row's score is not used: the objectives are metrics.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options.
 */
export function paretoKeep(options: ParetoKeepOptions): KeepPolicy {
  const o = parseOptions(paretoKeepOptionsSchema, options, 'pareto-keep');
  const weights = o.weights ?? o.objectives.map(() => 1);
  const decide = (input: KeepInput): KeepDecision => {
    const losses = objectiveLosses(input.candidateData?.metrics, o.objectives);
    if (!losses) {
      const missing = o.objectives
        .filter((x) => typeof input.candidateData?.metrics?.[x.metric] !== 'number')
        .map((x) => x.metric);
      return {
        keep: false,
        reason: `objective metric ${missing.join(', ')} missing in the candidate's record: not kept`,
      };
    }
    const baseline = objectiveLosses(input.baselineData?.metrics, o.objectives);
    const scale = (j: number) => (baseline && baseline[j] !== 0 ? Math.abs(baseline[j]!) : 1);
    const scalarise = (l: readonly number[]) => l.reduce((a, v, j) => a + (weights[j]! * v) / scale(j), 0);
    const scalarised = scalarise(losses);
    const violation = o.constraints
      ? totalViolation(
          o.constraints({
            iteration: -1,
            candidateId: '',
            score: input.candidate,
            status: 'reverted',
            description: '',
            ...(input.candidateData ? { data: input.candidateData } : {}),
          }),
        )
      : 0;
    if (violation > 0) {
      return {
        keep: false,
        reason: `infeasible (total violation ${fmt(violation)}): not kept, not on the front`,
        data: {
          pareto: {
            nonDominated: false,
            dominates: [],
            scalarised,
            frontSize: paretoFront(input.history ?? [], o.objectives, o).length,
          },
        },
      };
    }
    const front = paretoFront(input.history ?? [], o.objectives, o);
    const nonDominated = !front.some((p) => dominates(p.losses, losses) || sameLosses(p.losses, losses));
    const pushed = front.filter((p) => dominates(losses, p.losses)).map((p) => p.iteration);
    const record: ParetoRecord = {
      nonDominated,
      dominates: pushed,
      scalarised,
      frontSize: nonDominated ? front.length - pushed.length + 1 : front.length,
    };
    const incumbent = objectiveLosses(input.incumbentData?.metrics, o.objectives);
    const incumbentScalar = incumbent ? scalarise(incumbent) : Infinity;
    const keep = o.incumbent === 'non-dominated' ? nonDominated : scalarised < incumbentScalar;
    const dominated = pushed.length ? `, dominates ${pushed.join(', ')}` : '';
    const onFront = nonDominated
      ? `adds a non-dominated point (front ${record.frontSize}${dominated})`
      : 'dominated by the front';
    const rule =
      o.incumbent === 'non-dominated'
        ? ''
        : `; scalarised ${fmt(scalarised)} ${keep ? '<' : '>='} incumbent ${fmt(incumbentScalar)}`;
    const data: CandidateData = { pareto: record };
    // The row's description says so too (the engine appends a decision's note): `... (Pareto: non-dominated, front 3)`.
    const note = nonDominated ? `Pareto: non-dominated, front ${record.frontSize}${dominated}` : undefined;
    return { keep, reason: `${onFront}${rule}`, data, ...(note ? { note } : {}) };
  };
  return { name: `pareto(${o.objectives.map((x) => x.metric).join(',')})`, decide };
}

function fmt(x: number): string {
  return Number.isFinite(x) ? Number(x.toPrecision(6)).toString() : String(x);
}
