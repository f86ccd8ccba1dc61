import type { Agent } from '../agent.js';
import { checkAnchor, isLongDispatch, type AnchorStage } from '../task-anchors.js';
import type { TaskTracker } from '../task-tracker.js';

/**
 * Thrown (and handled by the controller, which escalates `stage_anchor_drift`) when the anchor check after a long
 * dispatch finds drift.
 */
export class AnchorDriftError extends Error {
  readonly code = 'STAGE_ANCHOR_DRIFT';
  constructor(
    message: string,
    readonly expected: string,
    readonly actual: readonly string[],
  ) {
    super(message);
    this.name = 'AnchorDriftError';
  }
}

/** The anchor the controller is executing, or null outside an iteration. */
export interface CurrentAnchor {
  readonly tracker: TaskTracker;
  readonly iter: number;
  readonly stage: AnchorStage;
}

/**
 * Wraps an agent with the seed's self-anchor rule (Stage 1 Step 0 item 4): after a long dispatch
 * (reply > 200 characters or > 30 s by `now`), the tracker's in_progress anchor must be the one the
 * controller is executing; otherwise the dispatch throws {@link AnchorDriftError}.
 */
export function anchoredAgent(agent: Agent, current: () => CurrentAnchor | null, now: () => number): Agent {
  return {
    name: agent.name,
    run: async (request) => {
      const started = now();
      const text = await agent.run(request);
      const at = current();
      if (at && isLongDispatch(text.length, now() - started)) {
        const check = await checkAnchor(at.tracker, at.iter, at.stage);
        if (!check.ok)
          throw new AnchorDriftError(
            `after the ${request.role} dispatch the in_progress anchor ` +
              `is ${check.actual.join(', ') || 'none'}, expected ${check.expected}`,
            check.expected,
            check.actual,
          );
      }
      return text;
    },
  };
}
