import { LoopError } from '@loop/core';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { CapabilityTier } from './agent.js';

/** zod schema of one `## ISSUE-{nnn}` record of observations.md (seed 000 Step 3.1). */
export const issueRecordSchema = z.object({
  id: z.string().regex(/^ISSUE-\d{3,}$/, 'must be ISSUE-nnn'),
  title: z.string().min(1, 'title must not be empty'),
  /** A log excerpt, at most 5 lines (longer evidence is cut to its first 5 lines). */
  evidence: z
    .string()
    .default('')
    .transform((e) => e.split('\n').slice(0, 5).join('\n').trimEnd()),
  severity: z.number().int().min(1).max(5),
  first_seen_ts: z.union([z.string(), z.number()]).transform(String).default(''),
  blocking: z.boolean(),
});
/** One observed issue. */
export type IssueRecord = z.output<typeof issueRecordSchema>;

/**
 * Parses observations.md: `## ISSUE-{nnn}` sections whose body is YAML, either plain `key: value`
 * lines or the seed's `- key: value` list. No section means no issues.
 *
 * @throws {LoopError} `PROPOSER_FAILED` naming the issue and field when a section is malformed.
 */
export function parseObservations(text: string): IssueRecord[] {
  const parts = text.split(/^##\s+(ISSUE-\d{3,})\s*$/m);
  const out: IssueRecord[] = [];
  for (let i = 1; i < parts.length; i += 2) {
    const id = parts[i]!;
    let body: unknown;
    try {
      body = parseYaml((parts[i + 1] ?? '').replace(/^```[a-z]*\s*$/gm, ''));
    } catch (error) {
      throw new LoopError(
        'PROPOSER_FAILED',
        `[loop] [collie] the observation of ${id} is not valid YAML: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const fields = Array.isArray(body)
      ? Object.assign({}, ...body.filter((x) => typeof x === 'object' && x !== null))
      : typeof body === 'object' && body !== null
        ? body
        : {};
    const r = issueRecordSchema.safeParse({ ...fields, id });
    if (!r.success) {
      throw new LoopError(
        'PROPOSER_FAILED',
        `[loop] [collie] the observation of ${id} is not ` +
          `valid: ${r.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}; ` +
          `ask the observer again`,
        { details: { id } },
      );
    }
    out.push(r.data);
  }
  return out;
}

/** Renders observations.md in the seed's Step 3.1 format. */
export function renderObservations(issues: readonly IssueRecord[]): string {
  if (issues.length === 0) return '# Observations\n\nNo issues observed.\n';
  const block = (i: IssueRecord) => {
    const evidence = i.evidence.includes('\n')
      ? `|\n${i.evidence
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n')}`
      : JSON.stringify(i.evidence);
    return [
      `## ${i.id}`,
      `- title: ${JSON.stringify(i.title)}`,
      `- evidence: ${evidence}`,
      `- severity: ${i.severity}`,
      `- first_seen_ts: ${JSON.stringify(i.first_seen_ts)}`,
      `- blocking: ${i.blocking}`,
    ].join('\n');
  };
  return `${issues.map(block).join('\n\n')}\n`;
}

/**
 * Step 3.2 step 2, the start tier of the recovery ladder. The seed assesses complexity (simple →
 * haiku, medium → sonnet, complex → opus); we read it from the highest severity among the blocking
 * issues: 1-2 fast, 3 standard, 4-5 deep; no blocking issue record (only a non-zero exit) → fast.
 */
export function ladderStartTier(issues: readonly Pick<IssueRecord, 'severity' | 'blocking'>[]): CapabilityTier {
  const s = Math.max(0, ...issues.filter((i) => i.blocking).map((i) => i.severity));
  return s >= 4 ? 'deep' : s === 3 ? 'standard' : 'fast';
}

/** Step 3.2 step 3.5: after a failed attempt the tier goes up one step, capped at deep (opus). */
export function upgradeTier(tier: CapabilityTier): CapabilityTier {
  return tier === 'fast' ? 'standard' : 'deep';
}
