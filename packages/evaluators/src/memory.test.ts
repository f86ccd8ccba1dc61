import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluateMemory, MEMORY_WEIGHTS } from './memory.js';

const fixture = (p: string) => fileURLToPath(new URL(`../test/fixtures/${p}`, import.meta.url));
const NOW = '2026-12-01';
const dims = async (p: string, o = {}) =>
  Object.fromEntries((await evaluateMemory(fixture(p), { now: NOW, ...o })).dimensions.map((d) => [d.name, d]));

describe('memory evaluator', () => {
  it('weights: retrieval 0.5, signal_noise 0.3, index 0.2', () => {
    expect(Object.values(MEMORY_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });

  it('the good folder scores 10 on all three dimensions', async () => {
    const e = await evaluateMemory(fixture('memory-good'), { now: NOW });
    expect(e.dimensions.map((d) => [d.name, d.score])).toEqual([
      ['retrieval', 10],
      ['signal_noise', 10],
      ['index', 10],
    ]);
  });

  it(
    'retrieval: a hit is the answer text in one of the BM25 top 3; missing ' + 'or superseded facts are misses',
    async () => {
      const d = await dims('memory-bad');
      expect(d.retrieval!.score).toBe(5);
      expect(d.retrieval!.notes).toContain('miss: "who owns billing" (top 3: nothing)');
    },
  );

  it('signal_noise: duplicates, empty files and stale entries are noise', async () => {
    const notes = (await dims('memory-bad')).signal_noise!.notes;
    expect(notes).toEqual([
      'notes/db-copy.md: duplicate of database.md',
      'notes/empty.md: empty',
      'notes/old-deploys.md: stale',
      '1/4 files carry signal',
    ]);
  });

  it('signal_noise: a near-duplicate (3-shingle Jaccard >= 0.8) and an expired entry are noise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-'));
    try {
      const long =
        'The staging Postgres database listens on port 5433 on host ' +
        'db.staging.internal and migrations run with pnpm db:migrate every single ' +
        'night at two';
      writeFileSync(join(dir, 'a.md'), `# A\n${long}\n`);
      writeFileSync(join(dir, 'b.md'), `# B\n${long} am\n`);
      writeFileSync(
        join(dir, 'c.md'),
        `---\nexpires: 2026-01-01\n---\n# C\nThe old VPN endpoint is vpn.example.internal.\n`,
      );
      writeFileSync(`${dir}.questions.json`, JSON.stringify([{ query: 'staging port', answer: '5433' }]));
      const notes = (await evaluateMemory(dir, { now: NOW })).dimensions[1]!.notes;
      expect(notes).toEqual(['b.md: near-duplicate of a.md', 'c.md: stale', '1/3 files carry signal']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(`${dir}.questions.json`, { force: true });
    }
  });

  it('index: every memory file listed exactly once, no link to nothing', async () => {
    const d = await dims('memory-bad');
    expect(d.index!.score).toBe(0);
    expect(d.index!.notes).toContain('database.md is listed 2 times');
    expect(d.index!.notes).toContain('index links gone.md, which does not exist');
    expect(d.index!.notes).toContain('notes/empty.md is not in the index');
  });

  it('--agent scopes to one agent folder, with its own question set beside it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-agents-'));
    try {
      cpSync(fixture('memory-good'), join(dir, 'alice'), { recursive: true });
      cpSync(fixture('memory-bad'), join(dir, 'bob'), { recursive: true });
      cpSync(fixture('memory-good.questions.json'), join(dir, 'alice.questions.json'));
      expect((await evaluateMemory(dir, { agent: 'alice', now: NOW })).score).toBe(10);
      await expect(evaluateMemory(dir, { agent: 'bob', now: NOW })).rejects.toMatchObject({
        code: 'TARGET_UNPARSEABLE',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is deterministic: the same folder gets the same evaluation', async () => {
    expect(await evaluateMemory(fixture('memory-bad'), { now: NOW })).toEqual(
      await evaluateMemory(fixture('memory-bad'), { now: NOW }),
    );
  });
});
