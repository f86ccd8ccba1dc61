// Test-only fixture (not exported by the package): what the task-anchor tests expect.
/** The seed's Step 0 anchor subjects of iteration `n`, stages 1..6 in order. */
export const EXPECTED_SUBJECTS = (n: number): string[] => [
  `[iter-${n} stage-1] Kickoff (git HEAD + baseline)`,
  `[iter-${n} stage-2] Run trigger (subprocess background + Monitor/tail)`,
  `[iter-${n} stage-3] Observe (ISSUE collection + auto-recovery ladder)`,
  `[iter-${n} stage-4] Triage + Deep Verify (4a/4b opus)`,
  `[iter-${n} stage-5] Fix Plan + flow + G6 audit + Rerun (5.0/5.1/5.2/5.3)`,
  `[iter-${n} stage-6] Rollback + Stop Check`,
];
