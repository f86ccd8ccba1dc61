import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AutoresearchProposer, EditIdea } from '@loop/autoresearch';

/** One literal find/replace on the module (`all`: every occurrence, else the first). */
export interface Replacement {
  readonly find: string;
  readonly replace: string;
  readonly all?: boolean;
  /**
   * Another workspace file to edit instead of the module. Only for showing the harness guard: an
   * edit of `tools/reflect.mjs` halts the pass as `harness-tampered`. @default the module
   */
  readonly file?: string;
}

/** One scripted idea: `apply` is internal round 0, `refine` (optional) runs in round 1. */
export interface ScriptedStep {
  readonly description: string;
  readonly slug: string;
  readonly apply: readonly Replacement[];
  readonly refine?: readonly Replacement[];
}

/** The example's scripted ideas, in order (`proposer/steps.json`). */
export const STEPS_PATH = join(import.meta.dirname, '..', 'proposer', 'steps.json');

/** Reads the scripted steps. */
export function loadSteps(path = STEPS_PATH): ScriptedStep[] {
  return JSON.parse(readFileSync(path, 'utf8')) as ScriptedStep[];
}

/** Applies `edits` to `text`; a `find` that is absent throws (the iteration is then a `crash`). */
export function applyReplacements(text: string, edits: readonly Replacement[]): string {
  let out = text;
  for (const e of edits) {
    if (!out.includes(e.find)) throw new Error(`scripted edit: ${JSON.stringify(e.find)} not found`);
    out = e.all ? out.split(e.find).join(e.replace) : out.replace(e.find, () => e.replace);
  }
  return out;
}

interface StepIdea extends EditIdea {
  readonly step: ScriptedStep;
}

/**
 * The "agent" of the example: each iteration, `plan` takes the next scripted step (one focused edit
 * of `file`), and `apply` makes it in round 0 and its `refine` edits in round 1 (function mode's
 * internal apply/refine rounds). It keeps no state besides the step index.
 */
export function createScriptedProposer(
  workspace: string,
  steps: readonly ScriptedStep[],
  file = 'src/slug.js',
): AutoresearchProposer {
  let next = 0;
  return {
    name: 'scripted',
    plan: () => {
      const step = steps[next++];
      if (!step) throw new Error('no scripted step left');
      const idea: StepIdea = { description: step.description, files: [file], slug: step.slug, step };
      return idea;
    },
    apply: (idea, { round }) => {
      const { step } = idea as StepIdea;
      const edits = round === 0 ? step.apply : round === 1 ? (step.refine ?? []) : [];
      for (const target of new Set(edits.map((e) => e.file ?? file))) {
        const path = join(workspace, target);
        writeFileSync(
          path,
          applyReplacements(
            readFileSync(path, 'utf8'),
            edits.filter((e) => (e.file ?? file) === target),
          ),
        );
      }
    },
  };
}
