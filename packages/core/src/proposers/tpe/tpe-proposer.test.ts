import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryArtifact } from '../../artifacts/memory-artifact.js';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import { createConfigFileAdapter, createMemoryConfigAdapter } from './config-adapter.js';
import { parseChanges } from './description.js';
import type { TpeParameter } from './space.js';
import { createTpeProposer } from './tpe-proposer.js';
import { changed, ctx, loss, run, space, start, type Config } from './test-fixtures/tpe-run.js';

describe('TPE proposer', () => {
  it(
    'names every changed parameter in its description, and only those (`key ' + 'from -> to`, comma-separated)',
    async () => {
      const { rows, evaluated } = await run({ iterations: 25 });
      let incumbent = start;
      rows.slice(1).forEach((row, i) => {
        const c = evaluated[i + 1]!;
        const names = parseChanges(row.description, new Set(Object.keys(space)))!.map((x) => x.key);
        expect(names.sort()).toEqual(changed(incumbent, c).sort());
        expect(names.length).toBeGreaterThan(0);
        for (const x of parseChanges(row.description, new Set(Object.keys(space)))!) expect(x.to).toBe(c[x.key]);
        if (row.status === 'kept') incumbent = c;
      });
      expect(evaluated.every((c) => c.seed === 7)).toBe(true); // keys outside the space are never touched
    },
  );

  it('is reproducible: the same seed proposes the same sequence, another seed another', async () => {
    const a = await run({ seed: 5, iterations: 15 });
    const b = await run({ seed: 5, iterations: 15 });
    const c = await run({ seed: 6, iterations: 15 });
    expect(a.rows.map((r) => r.description)).toEqual(b.rows.map((r) => r.description));
    expect(a.rows.map((r) => r.description)).not.toEqual(c.rows.map((r) => r.description));
  });

  it(
    'a resumed run rebuilds the same model from the rows: it proposes what ' + 'the uninterrupted run proposed next',
    async () => {
      const full = await run({ seed: 3, iterations: 20 });
      // Resume after 12 iterations: a fresh proposer, the first 13 rows as history, the config as the engine left it
      // (the
      // incumbent).
      const history = full.rows.slice(0, 13);
      let incumbent = start;
      history.forEach((r, i) => {
        if (r.status === 'kept') incumbent = full.evaluated[i]!;
      });
      const artifact = createMemoryArtifact<Config>(incumbent);
      const fresh = createTpeProposer({ config: createMemoryConfigAdapter(artifact), space, seed: 3 });
      const proposal = await fresh.propose(ctx(history, 13));
      expect(proposal.description).toBe(full.rows[13]!.description);
      expect(artifact.get()).toEqual(full.evaluated[13]);
    },
  );

  it('keeps integer and log ranges: integers stay whole and every value stays inside its bounds', async () => {
    const { evaluated } = await run({ iterations: 40, seed: 11 });
    for (const c of evaluated) {
      expect(Number.isInteger(c.hidden) && (c.hidden as number) >= 16 && (c.hidden as number) <= 512).toBe(true);
      expect(Number.isInteger(c.layers) && (c.layers as number) >= 1 && (c.layers as number) <= 6).toBe(true);
      expect((c.lr as number) >= 1e-4 && (c.lr as number) <= 1e-1).toBe(true);
      expect([16, 32, 64, 128]).toContain(c.batch);
      expect(['sgd', 'adam', 'rmsprop']).toContain(c.optimizer);
    }
  });

  it('writes fixed parameters as given and changes a conditional one only while its condition holds', async () => {
    const s: Record<string, TpeParameter> = {
      optimizer: { values: ['sgd', 'adam'] },
      momentum: { min: 0, max: 0.99, when: { optimizer: ['sgd'] } },
      lr: { min: 1e-4, max: 1e-1, scale: 'log' },
      epochs: { fixed: 3 },
    };
    const f = (c: Config) =>
      (c.optimizer === 'sgd' ? ((c.momentum as number) - 0.9) ** 2 : 0.05) + (Math.log10(c.lr as number) + 2) ** 2;
    const { rows, evaluated } = await run({
      spaceOverride: s,
      f,
      iterations: 30,
      history: { optimizer: 'adam', momentum: 0.5, lr: 0.01, epochs: 1 },
    });
    const keys = new Set(Object.keys(s));
    expect(evaluated.slice(1).every((c) => c.epochs === 3)).toBe(true);
    let incumbent: Config = evaluated[0]!;
    rows.slice(1).forEach((row, i) => {
      const c = evaluated[i + 1]!;
      const names = parseChanges(row.description, keys)!.map((x) => x.key);
      if (names.includes('momentum')) expect(c.optimizer).toBe('sgd');
      if (c.optimizer === 'adam') expect(c.momentum).toBe(incumbent.momentum);
      if (row.status === 'kept') incumbent = c;
    });
    expect(evaluated.some((c) => c.optimizer === 'sgd' && c.momentum !== 0.5)).toBe(true);
  });

  it('edits a JSON config file through the file adapter, other keys untouched', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loop-tpe-'));
    try {
      await writeFile(join(dir, 'config.json'), JSON.stringify(start));
      const p = createTpeProposer({ config: createConfigFileAdapter({ dir, file: 'config.json' }), space, seed: 2 });
      const rows: IterationRecord[] = [
        { iteration: 0, candidateId: 'a', score: loss(start), status: 'baseline', description: 'baseline' },
      ];
      const proposal = await p.propose(ctx(rows, 1));
      const after = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
      expect(proposal.changedFiles).toEqual(['config.json']);
      expect(after.seed).toBe(7);
      expect(
        parseChanges(proposal.description, new Set(Object.keys(space)))!
          .map((c) => c.key)
          .sort(),
      ).toEqual(changed(start, after).sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an invalid space fails with CONFIG_INVALID naming the parameter', () => {
    const config = createMemoryConfigAdapter(createMemoryArtifact<Config>(start));
    expect(() => createTpeProposer({ config, space: { lr: { min: 1, max: 0 } } })).toThrow(
      /space\.lr\.max: max must be greater than min/,
    );
    expect(() => createTpeProposer({ config, space: { e: { fixed: 1 } } })).toThrow(/at least one searched parameter/);
  });
});
