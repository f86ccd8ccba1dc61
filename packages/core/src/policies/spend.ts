import type { IterationRecord } from '../contracts/iteration-record.js';

/** What one group of rows cost. */
export interface SpendPart {
  /** Rows in the group that carry a cost. */
  readonly rows: number;
  /** US dollars (0 when no row reported any). */
  readonly usd: number;
  /** Tokens (0 when no row reported any). */
  readonly tokens: number;
}

/**
 * What a run's proposals cost, summed from its rows' `data.cost` (an agent proposer's usage), so
 * it survives a resume whose rows carry their data. `kept`, `discarded` (reverted and rejected
 * rows, duplicates included) and `crashed` (crash and halted rows) split `total`.
 */
export interface Spend {
  /** Every row with a cost (the baseline's, when it has one, included). */
  readonly total: SpendPart;
  /** Rows that were kept. */
  readonly kept: SpendPart;
  /** Rows that were reverted or rejected. */
  readonly discarded: SpendPart;
  /** Rows that crashed or halted. */
  readonly crashed: SpendPart;
  /** True when some row reported dollars. */
  readonly hasUsd: boolean;
  /** True when some row reported tokens. */
  readonly hasTokens: boolean;
}

const empty = (): { rows: number; usd: number; tokens: number } => ({ rows: 0, usd: 0, tokens: 0 });
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * A record's `data.cost` with only its finite, non-negative fields (`usd` in US dollars, `tokens`),
 * `undefined` when none is left: what {@link spendOf} sums and `loop log` shows per row.
 */
export function validCost(raw: unknown): { usd?: number; tokens?: number } | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { usd, tokens } = raw as Record<string, unknown>;
  const cost = { ...(finite(usd) ? { usd } : {}), ...(finite(tokens) ? { tokens } : {}) };
  return Object.keys(cost).length > 0 ? cost : undefined;
}

/** Sums the rows' `data.cost` (see {@link Spend}); rows without a cost are skipped. */
export function spendOf(history: readonly IterationRecord[]): Spend {
  const total = empty();
  const kept = empty();
  const discarded = empty();
  const crashed = empty();
  let hasUsd = false;
  let hasTokens = false;
  for (const row of history) {
    const cost = validCost(row.data?.cost);
    if (!cost) continue;
    const part =
      row.status === 'kept'
        ? kept
        : row.status === 'crash' || row.status === 'halted'
          ? crashed
          : row.status === 'baseline'
            ? undefined
            : discarded;
    for (const p of part ? [total, part] : [total]) {
      p.rows += 1;
      p.usd += cost.usd ?? 0;
      p.tokens += cost.tokens ?? 0;
    }
    hasUsd ||= cost.usd !== undefined;
    hasTokens ||= cost.tokens !== undefined;
  }
  return { total, kept, discarded, crashed, hasUsd, hasTokens };
}

/** `$0.4200` with four decimals below a dollar, two above. */
export function formatUsd(usd: number): string {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/**
 * One line for a stop summary: `spent $0.42 and 12,345 tokens on 7 proposals: $0.10 on 2 kept,
 * $0.25 on 4 discarded, $0.07 on 1 crashed`; `undefined` when no row carries a cost.
 */
export function describeSpend(spend: Spend): string | undefined {
  if (spend.total.rows === 0) return undefined;
  const amount = (p: SpendPart) =>
    [spend.hasUsd ? formatUsd(p.usd) : '', spend.hasTokens ? `${p.tokens.toLocaleString('en-US')} tokens` : '']
      .filter(Boolean)
      .join(' and ');
  const parts = (
    [
      ['kept', spend.kept],
      ['discarded', spend.discarded],
      ['crashed', spend.crashed],
    ] as const
  )
    .filter(([, p]) => p.rows > 0)
    .map(([name, p]) => `${amount(p)} on ${p.rows} ${name}`);
  const n = spend.total.rows;
  return (
    `spent ${amount(spend.total)} on ${n} ` +
    `proposal${n === 1 ? '' : 's'}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`
  );
}
