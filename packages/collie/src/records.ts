import { LoopError } from '@loop/core';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** A 1-5 integer score (severity, confidence). */
const oneToFive = z.number().int().min(1).max(5);

/** The verdicts of Stage 4a Triage (seed 000). */
export const TRIAGE_VERDICTS = ['Real', 'Discarded', 'Unclear'] as const;
/** One of {@link TRIAGE_VERDICTS}. */
export type TriageVerdict = (typeof TRIAGE_VERDICTS)[number];

/** zod schema of one `## ISSUE-{nnn}` section of triage.md (seed 000 Stage 4a output). */
export const triageRecordSchema = z.object({
  /** `ISSUE-{nnn}`. */
  issue: z.string().regex(/^ISSUE-\d{3,}$/, 'issue must be ISSUE-nnn'),
  /** Real | Discarded | Unclear. */
  verdict: z.enum(TRIAGE_VERDICTS),
  /** 1-5. */
  confidence: oneToFive,
  /** The adversarial reasoning. */
  rationale: z.string().default(''),
});
/** One triage record (see {@link triageRecordSchema}). */
export type TriageRecord = z.output<typeof triageRecordSchema>;

/** The FIX kinds of Stage 4b (seed 000). */
export const FIX_KINDS = ['correctness', 'optimization', 'mixed'] as const;
/** One of {@link FIX_KINDS}. */
export type FixKind = (typeof FIX_KINDS)[number];

const fixId = z.string().regex(/^FIX-\d{3,}$/, 'must be FIX-nnn');

/**
 * zod schema of iter-N/fixes/FIX-{nnn}.md (seed 000 Stage 4b output). `root_cause` and
 * `reproduction_test` may be empty here: an empty one is not malformed, it is routed to DEFERRED by
 * G2 ({@link deepVerifyGate}).
 */
export const fixRecordSchema = z.object({
  /** `FIX-{nnn}`. */
  id: fixId,
  /** correctness | optimization | mixed. */
  kind: z.enum(FIX_KINDS),
  /** 1-5. */
  severity: oneToFive,
  /** 1-5; at most 2 is DEFERRED (G8). */
  fix_confidence: oneToFive,
  /** Must be non-empty to be eligible (G2). */
  root_cause: z.string().default(''),
  /** A runnable test reproducing the issue before the fix; must be non-empty to be eligible (G2). */
  reproduction_test: z.string().default(''),
  /** What to change, where. */
  fix_outline: z.string().default(''),
  /** The adversarial justification. */
  why_root_cause: z.string().default(''),
  /** FIX ids this one depends on (the Stage 5.0 DAG). */
  dependencies: z.array(fixId).default([]),
  /** triage_unclear | none. */
  uncertainty_tag: z.enum(['triage_unclear', 'none']).default('none'),
  /**
   * The files the fix touches (relative to the worktree). Not in the seed's FIX template; added
   * because Stage 5.0's "Key files" and G6's audit need them.
   */
  key_files: z.array(z.string().min(1)).default([]),
});
/** One FIX record (see {@link fixRecordSchema}). */
export type FixRecord = z.output<typeof fixRecordSchema>;

function invalid(what: string, detail: string, cause?: unknown): LoopError {
  return new LoopError(
    'PROPOSER_FAILED',
    `[loop] [collie] the agent's ${what} is not valid: ${detail}; ask the agent again or fix the file by hand`,
    { cause, details: { what } },
  );
}

function yamlObject(text: string, what: string): unknown {
  const body = text.replace(/^```[a-z]*\s*$/gm, '');
  try {
    return parseYaml(body);
  } catch (error) {
    throw invalid(what, (error as Error).message, error);
  }
}

function check<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw invalid(
    what,
    r.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; '),
    r.error,
  );
}

/**
 * Parses triage.md: one `## ISSUE-{nnn}` heading per issue followed by `verdict:`, `confidence:`
 * and `rationale:` lines (YAML).
 *
 * @throws {LoopError} `PROPOSER_FAILED` naming the field when a section is malformed or none exists.
 */
export function parseTriage(text: string): TriageRecord[] {
  const parts = text.split(/^##\s+(ISSUE-\d{3,})\s*$/m);
  const out: TriageRecord[] = [];
  for (let i = 1; i < parts.length; i += 2) {
    const issue = parts[i]!;
    const body = yamlObject(parts[i + 1] ?? '', `triage of ${issue}`);
    out.push(
      check(
        triageRecordSchema,
        { ...(typeof body === 'object' && body !== null ? body : {}), issue },
        `triage of ${issue}`,
      ),
    );
  }
  if (out.length === 0) throw invalid('triage', 'no "## ISSUE-nnn" section found');
  return out;
}

/**
 * Parses one FIX-{nnn}.md (YAML fields, seed 000 Stage 4b).
 *
 * @throws {LoopError} `PROPOSER_FAILED` naming the field when it is malformed.
 */
export function parseFixRecord(text: string): FixRecord {
  return check(fixRecordSchema, yamlObject(text, 'FIX record'), 'FIX record');
}
