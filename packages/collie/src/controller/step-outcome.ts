import type { RunState } from '../run-state.js';

/** The stage a `stage` outcome ran. */
export type StageName =
  | 'stage1'
  | 'stage2'
  | 'stage3'
  | 'stage3.2'
  | 'stage4a'
  | 'stage4b'
  | 'stage5.0'
  | 'stage5.1'
  | 'stage5.2'
  | 'stage5.3'
  | 'stage6';

/** What one `step()` of the autoiter controller did (not core's `StepOutcome`, a step of the engine). */
export type AutoiterStepOutcome =
  | { readonly kind: 'nested-refused' }
  | { readonly kind: 'stage0'; readonly runId: string; readonly recoveryFailed?: string }
  | { readonly kind: 'recovered'; readonly runId: string; readonly status: RunState['status'] }
  | { readonly kind: 'prepare-retry'; readonly runId: string; readonly report: string }
  | {
      readonly kind: 'stage';
      readonly runId: string;
      readonly iter: number;
      readonly stage: StageName;
      readonly status: RunState['status'];
    }
  | { readonly kind: 'done'; readonly runId: string; readonly status: RunState['status']; readonly signal: string };
