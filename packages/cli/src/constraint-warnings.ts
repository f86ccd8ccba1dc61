import type { LoopEvent } from '@loop/core';

/** A broken constraint as a decided row records it (core's `ConstraintVerdict` violation). */
interface Violation {
  readonly constraint: string;
  readonly mode: string;
  readonly violation: number | null;
}

const describe = (v: Violation) => {
  const by = v.violation === null ? 'missing' : Number(v.violation.toPrecision(6));
  return `${v.constraint} (by ${by})`;
};

/**
 * Collects the kept rows that broke an advisory constraint (issue 28) from the loop's `kept`
 * events, for a warning under the stop summary: `lines()` is empty when none did.
 */
export function createConstraintWarnings(): { event: (e: LoopEvent) => void; lines: () => string[] } {
  const kept: { iteration: number; broken: Violation[] }[] = [];
  return {
    event: (e) => {
      if (e.type !== 'kept') return;
      const all = (e.record.data?.constraints as { violations?: Violation[] } | undefined)?.violations ?? [];
      const broken = all.filter((v) => v.mode === 'advisory');
      if (broken.length > 0) kept.push({ iteration: e.record.iteration, broken });
    },
    lines: () => {
      if (kept.length === 0) return [];
      const n = kept.length;
      return [
        `warning: ${n} kept change${n === 1 ? '' : 's'} broke an advisory constraint:`,
        ...kept.map((k) => `  iter ${k.iteration}  ${k.broken.map(describe).join('; ')}`),
      ];
    },
  };
}
