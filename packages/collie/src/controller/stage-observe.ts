import { readLogTail } from '@loop/core/harness';
import { writeTextAtomic } from '@loop/core/files';
import { readText } from '../internal/read-text.js';
import { join } from 'node:path';
import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import { TIER_MODELS } from '../agent.js';
import { ladderStartTier, parseObservations, renderObservations, upgradeTier } from '../observations.js';
import type { RunPaths } from '../paths.js';
import type { LadderAttempt, RunState } from '../run-state.js';
import type { RunSpec } from '../run-spec.js';
import type { StageContext } from './stage-context.js';
import type { AutoiterStepOutcome } from './step-outcome.js';
import { changedFilesSince } from '@loop/rollback-git/git';
import { forbiddenTestFileChanges, type ChangedFile } from '../diff-audit.js';

const OBSERVE_PROMPT = [
  'You are the Observe subagent of an autoiter run. Read the trigger log excerpt and the run spec.',
  'List every issue (errors, failing tests, crashes, suspicious metrics) as a markdown section:',
  '## ISSUE-{nnn}',
  '- title: <one-line summary>',
  '- evidence: <log excerpt, max 5 lines>',
  '- severity: 1-5',
  '- first_seen_ts: <monotonic>',
  '- blocking: true|false   (true when the run cannot produce its result)',
  'If there are no issues, reply with the single line: NO ISSUES',
].join('\n');

const diagnosePrompt = (worktree: string) =>
  [
    'You are the diagnostic subagent of the autoiter auto-recovery ladder.',
    'The trigger run failed with a blocking issue. Find the root cause from the log excerpt and the run spec,',
    `then apply the smallest fix in the working copy at ${worktree}.`,
    'Reply with YAML only:',
    'root_cause: "<one line>"',
    'fix_applied: "<what you changed, or none>"',
  ].join('\n');

/** Stage 3.2: at most 3 ladder attempts. */
export const MAX_LADDER_ATTEMPTS = 3;
/** Stage 3.2: the validation rerun's cap, in minutes. */
export const VALIDATION_CAP_MIN = 5;

function exitCodeOf(log: string): number | null {
  const m = [...log.matchAll(/^EXIT_CODE:(\d+)$/gm)].at(-1);
  return m ? Number(m[1]) : null;
}

/**
 * Stage 3.1: the observer (fast tier) parses the last 200 lines of raw.log into ISSUE records
 * (this process never parses more than 50 log lines itself); a blocking issue or a non-zero exit
 * code starts the auto-recovery ladder at the tier the issues' complexity suggests.
 */
export async function stageObserve(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
): Promise<AutoiterStepOutcome> {
  const n = state.iter;
  const ip = rp.iter(n);
  const tail = await readLogTail(ip.rawLog, 200);
  const reply = await c.agent.run({
    role: 'observe',
    tier: 'fast',
    prompt: OBSERVE_PROMPT,
    inputs: { 'raw.log (last 200 lines)': tail, 'run-spec.md': (await readText(rp.runSpec)) ?? '' },
  });
  const issues = parseObservations(reply);
  await writeTextAtomic(ip.observations, renderObservations(issues));
  const exitCode = exitCodeOf((await readText(ip.rawLog)) ?? '');
  const nBlocking = issues.filter((i) => i.blocking).length;
  const blocking = nBlocking > 0 || exitCode !== 0;
  await c.observe(rp, `iter ${n}/${spec.budget.max_iterations} · Stage 3 · Observing · ${issues.length} issues found`);
  c.tick(
    state.runId,
    `iter-${n} Stage 3 → ${issues.length} issues recorded, ${nBlocking} ` +
      `blocking${exitCode !== 0 ? ` (exit code ${exitCode ?? 'none'})` : ''}`,
  );
  await c.persist(rp, {
    ...state,
    stage: blocking ? 'recover' : 'triage',
    ladder: blocking ? { tier: ladderStartTier(issues), attempts: [] } : null,
  });
  return { kind: 'stage', runId: state.runId, iter: n, stage: 'stage3', status: 'running' };
}

/**
 * The test files changed since the iteration's start sha (committed or not: the real branch diff); none outside git.
 */
async function ladderG1(c: StageContext, state: RunState, rp: RunPaths): Promise<ChangedFile[]> {
  if (state.iter_start === null) return [];
  return forbiddenTestFileChanges(await changedFilesSince(await c.gitCtx(rp), state.iter_start), []);
}

/**
 * Stage 3.2: one ladder attempt per step: the diagnostic agent (current tier) finds the root cause
 * and fixes the worktree; G1 then checks the iteration's real diff (a test file changed since the
 * iteration started escalates `g1_test_file_guard` before the rerun could pass because of it), then a validation rerun
 * capped at 5 minutes. Pass → Stage 4a; fail → the
 * tier is raised (haiku → sonnet → opus, capped); the third failure writes blocker-report.md,
 * escalates `blocker_unrecoverable`, notifies, and sets status escalated.
 */
export async function stageRecover(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
): Promise<AutoiterStepOutcome> {
  const n = state.iter;
  const m = spec.budget.max_iterations;
  const ip = rp.iter(n);
  const id = state.runId;
  const ladder = state.ladder ?? { tier: 'fast' as const, attempts: [] };
  const attempt = ladder.attempts.length + 1;
  const lastLog = attempt === 1 ? ip.rawLog : join(ip.dir, `recovery-${attempt - 1}.log`);
  const worktree = await c.worktreeOf(rp);
  let rootCause: string;
  let fixApplied: string;
  try {
    const reply = await c.agent.run({
      role: 'diagnose',
      tier: ladder.tier,
      prompt: diagnosePrompt(worktree),
      inputs: {
        'raw.log (last 200 lines)': await readLogTail(lastLog, 200),
        'run-spec.md': (await readText(rp.runSpec)) ?? '',
      },
    });
    const yaml = (() => {
      try {
        return parseYaml(reply) as unknown;
      } catch {
        return undefined;
      }
    })();
    const parsed = z
      .object({ root_cause: z.coerce.string().default(''), fix_applied: z.coerce.string().default('') })
      .safeParse(yaml);
    rootCause = parsed.success && parsed.data.root_cause ? parsed.data.root_cause : (reply.trim().split('\n')[0] ?? '');
    fixApplied = parsed.success ? parsed.data.fix_applied : '';
  } catch (error) {
    if ((error as { code?: string }).code === 'STAGE_ANCHOR_DRIFT') throw error;
    rootCause = `diagnostic agent failed: ${(error as Error).message}`;
    fixApplied = 'none';
  }
  // G1 holds at Stage 3 too (seed 000 Key Invariant 5): the ladder may not change a test file.
  const g1 = await ladderG1(c, state, rp);
  if (g1.length > 0) {
    const detail =
      `Stage 3.2 recovery attempt ${attempt} (${TIER_MODELS[ladder.tier]}) ` +
      `left test files changed since the iteration ` +
      `started: ${g1.map((f) => `${f.path} (${f.status})`).join(', ')}`;
    await c.escalateRun(
      {
        ...state,
        ladder: {
          tier: ladder.tier,
          attempts: [
            ...ladder.attempts,
            { attempt, tier: ladder.tier, root_cause: rootCause, fix_applied: fixApplied, result: 'fail' },
          ],
        },
      },
      rp,
      `iter ${n}/${m} · Stage 3 · G1 test-file guard FAIL · ${g1.length} test files`,
      'g1_test_file_guard',
      detail,
      'escalated',
    );
    return { kind: 'stage', runId: id, iter: n, stage: 'stage3.2', status: 'escalated' };
  }
  const r = await c.triggerRun(state, spec, rp, join(ip.dir, `recovery-${attempt}.log`), {
    capMin: VALIDATION_CAP_MIN,
  });
  const record: LadderAttempt = {
    attempt,
    tier: ladder.tier,
    root_cause: rootCause,
    fix_applied: fixApplied,
    result: r.exitCode === 0 ? 'pass' : 'fail',
  };
  const attempts = [...ladder.attempts, record];
  c.tick(id, `iter-${n} Stage 3 → recovery attempt ${attempt} (${TIER_MODELS[ladder.tier]}): ${record.result}`);
  if (record.result === 'pass') {
    await c.logOnce(
      rp,
      `iter-${n}/recover-${attempt}`,
      `Auto-recovery succeeded on attempt ${attempt} (${TIER_MODELS[ladder.tier]}): ${rootCause}`,
    );
    await c.persist(rp, { ...state, stage: 'triage', ladder: { tier: ladder.tier, attempts } });
    return { kind: 'stage', runId: id, iter: n, stage: 'stage3.2', status: 'running' };
  }
  if (attempt < MAX_LADDER_ATTEMPTS) {
    await c.persist(rp, { ...state, ladder: { tier: upgradeTier(ladder.tier), attempts } });
    return { kind: 'stage', runId: id, iter: n, stage: 'stage3.2', status: 'running' };
  }
  const report = [
    `# Blocker report — iter-${n}`,
    '',
    ...attempts.flatMap((a) => [
      `## Attempt ${a.attempt}`,
      `- model: ${TIER_MODELS[a.tier]}`,
      `- root_cause: ${a.root_cause}`,
      `- fix_applied: ${a.fix_applied || 'none'}`,
      `- result: ${a.result}`,
      '',
    ]),
  ].join('\n');
  await writeTextAtomic(join(ip.dir, 'blocker-report.md'), report);
  await c.observe(
    rp,
    `iter ${n}/${m} · Stage 3 · BLOCKED · auto-recovery ladder exhausted`,
    `## blocked · ${c.iso()}\nAuto-recovery ladder exhausted ` +
      `after ${attempt} attempts; see iter-${n}/blocker-report.md.`,
    `iter-${n}/blocked`,
  );
  await c.effectOnce(`iter-${n}/blocked/escalate`, () => c.escalate('blocker_unrecoverable', id));
  await c.effectOnce(`iter-${n}/blocked/notify`, () =>
    c.notifier.notify({ event: 'blocker_unrecoverable', runId: id, statusFile: rp.status }),
  );
  await c.persist(rp, {
    ...state,
    status: 'escalated',
    should_continue: false,
    stop_reason: 'blocker_unrecoverable',
    ladder: { tier: ladder.tier, attempts },
  });
  return { kind: 'stage', runId: id, iter: n, stage: 'stage3.2', status: 'escalated' };
}
