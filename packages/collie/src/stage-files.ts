import { LoopError } from '@loop/core';
import { readJson, writeJsonAtomic, writeTextAtomic } from '@loop/core/files';
import { readText } from './internal/read-text.js';
import { stringify as stringifyYaml } from 'yaml';
import { z } from 'zod';
import type { DeferredItem } from './confidence-gates.js';
import { parseTriage, type FixRecord, type TriageRecord } from './records.js';

/** Renders triage.md (seed 000 Stage 4a output); parseable by `parseTriage`. */
export function renderTriage(iter: number, records: readonly TriageRecord[]): string {
  if (records.length === 0) return `# Triage — iter-${iter}\n\nNo issues to triage.\n`;
  const block = (t: TriageRecord) =>
    [
      `## ${t.issue}`,
      `verdict: ${t.verdict}`,
      `confidence: ${t.confidence}`,
      `rationale: ${JSON.stringify(t.rationale)}`,
    ].join('\n');
  return `# Triage — iter-${iter}\n\n${records.map(block).join('\n\n')}\n`;
}

/** Reads triage.md back (no section = no records). */
export function readTriageText(text: string): TriageRecord[] {
  return /^##\s+ISSUE-\d{3,}\s*$/m.test(text) ? parseTriage(text) : [];
}

/** Renders fixes/FIX-nnn.md (YAML, seed 000 Stage 4b template; parseable by `parseFixRecord`). */
export function renderFixRecord(fix: FixRecord): string {
  return stringifyYaml(fix, { lineWidth: 0, blockQuote: 'literal' });
}

/** The FIX id Deep Verify writes for an issue: ISSUE-nnn → FIX-nnn. */
export const fixIdOf = (issueId: string): string => issueId.replace(/^ISSUE-/, 'FIX-');

const DEFERRED_LINE = /^- (iter-\d+) ((?:ISSUE|FIX)-\d{3,}) · (\S+)$/;

/**
 * Adds items to progress.md's DEFERRED pool (one line per item: `- iter-N <id> · <tag>`), keeping
 * the existing lines. Idempotent: an item already in the pool is not added twice.
 */
export async function addDeferred(
  path: string,
  runId: string,
  iter: number,
  items: readonly DeferredItem[],
): Promise<void> {
  const text = (await readText(path)) ?? '';
  const lines = text.split('\n').filter((l) => DEFERRED_LINE.test(l));
  for (const item of items) {
    const line = `- iter-${iter} ${item.id} · ${item.tag}`;
    if (!lines.includes(line)) lines.push(line);
  }
  const next = [`# Progress — ${runId}`, '', '## DEFERRED', ...(lines.length > 0 ? lines : ['(empty)']), ''].join('\n');
  if (next !== text) await writeTextAtomic(path, next);
}

/** The DEFERRED pool of progress.md: `{ iter, id, tag }` per line. */
export function parseDeferred(text: string): { iter: number; id: string; tag: string }[] {
  return text
    .split('\n')
    .map((l) => DEFERRED_LINE.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ iter: Number(m[1]!.slice(5)), id: m[2]!, tag: m[3]! }));
}

const changedFileSchema = z.object({ path: z.string(), status: z.enum(['added', 'modified', 'deleted']) });

/** zod schema of iter-N/flow.json, the Stage 5.1 ledger. */
export const flowLedgerSchema = z.object({
  /** HEAD before the first FIX commit (null when the plan had no FIX). */
  base: z.string().nullable(),
  /** One entry per FIX, in plan order; `commit` null when applying it changed nothing. */
  applied: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(['correctness', 'optimization', 'mixed']),
      commit: z.string().nullable(),
      files: z.array(changedFileSchema),
      note: z.string().default(''),
    }),
  ),
  /**
   * The FIX being applied and HEAD before it (written before the executor runs; null between FIXes): a restart resets
   * to `start`.
   */
  applying: z.object({ id: z.string(), start: z.string() }).nullable().default(null),
});
/** The Stage 5.1 ledger. */
export type FlowLedger = z.output<typeof flowLedgerSchema>;

/**
 * Reads flow.json.
 *
 * @throws {LoopError} `STATE_CORRUPT` naming the path when it is malformed.
 */
export async function readLedger(path: string): Promise<FlowLedger | undefined> {
  const raw = await readJson(path);
  if (raw === undefined) return undefined;
  const r = flowLedgerSchema.safeParse(raw);
  if (!r.success)
    throw new LoopError(
      'STATE_CORRUPT',
      `[loop] [collie] ${path} is ` +
        `malformed: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      { details: { path } },
    );
  return r.data;
}

/** Writes flow.json atomically. */
export async function writeLedger(path: string, ledger: FlowLedger): Promise<void> {
  await writeJsonAtomic(path, flowLedgerSchema.parse(ledger));
}

/** The task text G7 compares: the `- How:` lines (fix outlines) of a fix-plan.md. */
export function planTaskText(fixPlan: string): string {
  return fixPlan
    .split('\n')
    .filter((l) => l.startsWith('- How: '))
    .map((l) => l.slice(7))
    .join('\n');
}
