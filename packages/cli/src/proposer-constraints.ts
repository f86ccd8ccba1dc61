import { recordedViolations, type ConstraintsFunction } from '@loop/core/policies';

/** One `constraints:` entry of a loop config: a blocking expression, or `{ rule, mode }`. */
type ConfigConstraint = string | { readonly rule: string; readonly mode?: 'blocking' | 'advisory' };

/**
 * What the config's `constraints:` give the proposers (issue 28): `model`, the blocking
 * constraints' violations each row's keep decision recorded (`recordedViolations`, advisory ones
 * left out: they may be broken), for the TPE proposer and the mutator; `prompt`, every constraint's
 * violations with its expression as its name, for the agent's prompt. Empty without constraints.
 */
export function proposerConstraints(constraints: readonly ConfigConstraint[]): {
  readonly model?: { readonly constraints: ConstraintsFunction };
  readonly prompt?: { readonly constraints: ConstraintsFunction; readonly constraintNames: readonly string[] };
} {
  if (constraints.length === 0) return {};
  const blocking = constraints.map((c) => typeof c === 'string' || c.mode !== 'advisory');
  const names = constraints.map((c) => (typeof c === 'string' ? c : c.rule));
  const model: ConstraintsFunction = (record) => recordedViolations(record)?.filter((_, i) => blocking[i]);
  return {
    ...(blocking.some(Boolean) ? { model: { constraints: model } } : {}),
    prompt: { constraints: recordedViolations, constraintNames: names },
  };
}
