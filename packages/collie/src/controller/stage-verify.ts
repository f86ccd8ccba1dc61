import { LoopError } from '@loop/core';
import { writeTextAtomic } from '@loop/core/files';
import { readText } from '../internal/read-text.js';
import { existsSync } from 'node:fs';
import pLimit from 'p-limit';
import { parseObservations, renderObservations } from '../observations.js';
import type { RunPaths } from '../paths.js';
import { parseFixRecord, parseTriage, type FixRecord } from '../records.js';
import type { RunState } from '../run-state.js';
import type { RunSpec } from '../run-spec.js';
import {
  checkAdversarialPrompt,
  deepVerifyPrompt,
  DEEP_VERIFY_PROMPT_RULE,
  TRIAGE_PROMPT_RULE,
  triagePrompt,
} from '../adversarial-prompt.js';
import { routeRecords } from '../confidence-gates.js';
import { addDeferred, fixIdOf, readTriageText, renderFixRecord, renderTriage } from '../stage-files.js';
import type { StageContext } from './stage-context.js';
import type { AutoiterStepOutcome } from './step-outcome.js';

/**
 * Stage 4a (seed 000): one deep-tier (opus) triage agent with the "reverse suspicion" prompt (G3:
 * required phrases, at most 2 verbatim observation lines), inputs observations.md, run-spec.md and
 * progress.md; triage.md records the verdicts; G8 routes low confidence to the DEFERRED pool
 * (`triage_low_confidence`) and drops Discarded.
 *
 * @throws {LoopError} `CONFIG_INVALID` when the prompt fails G3 (a contract violation, never data).
 */
export async function stageTriage(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
): Promise<AutoiterStepOutcome> {
  const n = state.iter;
  const ip = rp.iter(n);
  const obsText = (await readText(ip.observations)) ?? '';
  const issues = parseObservations(obsText);
  let triage = readTriageText((await readText(ip.triage)) ?? '');
  if (issues.length > 0 && !existsSync(ip.triage)) {
    const prompt = triagePrompt();
    const promptCheck = checkAdversarialPrompt(prompt, obsText, TRIAGE_PROMPT_RULE);
    if (!promptCheck.ok)
      throw new LoopError(
        'CONFIG_INVALID',
        `[loop] [collie] the triage prompt fails G3 ` +
          (`(missing ${promptCheck.missingPhrases.join(', ') || 'none'}, ` +
            `${promptCheck.verbatimLines.length} verbatim lines)`),
      );
    const reply = await c.agent.run({
      role: 'triage',
      tier: 'deep',
      prompt,
      inputs: {
        'observations.md': obsText,
        'run-spec.md': (await readText(rp.runSpec)) ?? '',
        'progress.md': (await readText(rp.progress)) ?? '',
      },
    });
    const known = new Set(issues.map((i) => i.id));
    triage = parseTriage(reply).filter((t) => known.has(t.issue));
  }
  await writeTextAtomic(ip.triage, renderTriage(n, triage));
  const routed = routeRecords(triage);
  await addDeferred(rp.progress, state.runId, n, routed.deferred);
  const nReal = triage.filter((t) => t.verdict === 'Real').length;
  await c.observe(
    rp,
    `iter ${n}/${spec.budget.max_iterations} · Stage 4a · Triage · ${nReal} Real, ${routed.deferred.length} DEFERRED`,
    `Triage: ${triage.length} issues → ${routed.toVerify.length} to Deep ` +
      `Verify, ${routed.deferred.length} DEFERRED, ${routed.dropped.length} ` +
      `discarded.`,
    `iter-${n}/triage`,
  );
  c.tick(
    state.runId,
    `iter-${n} Stage 4a → triage complete (${triage.length} → ${routed.toVerify.length} to Deep Verify)`,
  );
  await c.persist(rp, { ...state, stage: 'verify' });
  return { kind: 'stage', runId: state.runId, iter: n, stage: 'stage4a', status: 'running' };
}

/**
 * Stage 4b: one deep-tier adversarial agent per verified issue, in parallel (p-limit); each
 * FIX-nnn.md is written as soon as its agent returns, so a restarted step only redoes the missing
 * ones. G8 (`deep_verify_low_confidence`) and G2 (`g2_incomplete`) route to the DEFERRED pool.
 */
export async function stageVerify(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
): Promise<AutoiterStepOutcome> {
  const n = state.iter;
  const ip = rp.iter(n);
  const triage = readTriageText((await readText(ip.triage)) ?? '');
  const toVerify = routeRecords(triage).toVerify;
  const issues = parseObservations((await readText(ip.observations)) ?? '');
  const runSpecText = (await readText(rp.runSpec)) ?? '';
  await c.observe(
    rp,
    `iter ${n}/${spec.budget.max_iterations} · Stage 4b · Deep Verify · ${toVerify.length} FIX in verification`,
  );
  c.tick(state.runId, `iter-${n} Stage 4b → ${toVerify.length} issues in parallel Deep Verify`);
  const limit = pLimit(c.options.parallel.deepVerify);
  const results = await Promise.allSettled(
    toVerify.map((issueId) =>
      limit(async () => {
        const fixId = fixIdOf(issueId);
        if (existsSync(ip.fix(fixId))) return;
        const prompt = deepVerifyPrompt(issueId, fixId);
        const issue = issues.filter((i) => i.id === issueId);
        const t = triage.find((x) => x.issue === issueId)!;
        const promptCheck = checkAdversarialPrompt(prompt, renderObservations(issue), DEEP_VERIFY_PROMPT_RULE);
        if (!promptCheck.ok)
          throw new LoopError('CONFIG_INVALID', `[loop] [collie] the deep-verify prompt of ${issueId} fails G3`);
        const reply = await c.agent.run({
          role: 'deep-verify',
          tier: 'deep',
          prompt,
          inputs: {
            [`observations.md (${issueId})`]: renderObservations(issue),
            [`triage.md (${issueId})`]: renderTriage(n, [t]),
            'run-spec.md': runSpecText,
          },
        });
        const parsed = parseFixRecord(reply);
        const fix: FixRecord = {
          ...parsed,
          id: fixId,
          uncertainty_tag: t.verdict === 'Unclear' ? 'triage_unclear' : parsed.uncertainty_tag,
        };
        await writeTextAtomic(ip.fix(fixId), renderFixRecord(fix));
      }),
    ),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const fixes = await c.verifiedFixes(ip);
  const routed = routeRecords([], fixes);
  await addDeferred(rp.progress, state.runId, n, routed.deferred);
  await c.logOnce(
    rp,
    `iter-${n}/verify`,
    `Deep Verify: ${fixes.length} FIX records, ${routed.eligible.length} eligible, ${routed.deferred.length} DEFERRED.`,
  );
  await c.persist(rp, { ...state, stage: 'plan' });
  return { kind: 'stage', runId: state.runId, iter: n, stage: 'stage4b', status: 'running' };
}
