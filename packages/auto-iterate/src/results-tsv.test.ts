import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildAgentPrompt } from '@loop/core/proposers';
import {
  AUTO_ITERATE_TSV_HEADER,
  createResultsTsv,
  formatAutoIterateHistory,
  parseAutoIterateTsv,
} from './results-tsv.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loop-tsv-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('results.tsv (auto-iterate form, seeds 001/003)', () => {
  it('writes the header first, then one line per iteration with keep/discard/crash', async () => {
    const log = createResultsTsv({ path: join(dir, 'results.tsv') });
    await log.append({
      iteration: 0,
      candidateId: 'a1b2c3d4e5f6',
      score: 5.78,
      status: 'baseline',
      description: 'baseline',
    });
    await log.append({
      iteration: 1,
      candidateId: 'e4f5g6h7',
      score: 6.12,
      status: 'kept',
      description: 'remove fuzzy word',
    });
    await log.append({
      iteration: 2,
      candidateId: 'h7i8j9k0',
      score: 6.12,
      status: 'reverted',
      description: 'restructure (no gain)',
    });
    await log.append({
      iteration: 3,
      candidateId: 'i0j1k2l3',
      score: null,
      status: 'crash',
      description: 'syntax error',
    });
    await log.append({
      iteration: 4,
      candidateId: 'abcdef01',
      score: null,
      status: 'rejected',
      description: 'edited prepare.mjs',
    });
    expect(await readFile(join(dir, 'results.tsv'), 'utf8')).toBe(
      [
        AUTO_ITERATE_TSV_HEADER,
        'a1b2c3d\t5.78\tkeep\tbaseline',
        'e4f5g6h\t6.12\tkeep\tremove fuzzy word',
        'h7i8j9k\t6.12\tdiscard\trestructure (no gain)',
        'i0j1k2l\tcrash\tcrash\tsyntax error',
        'abcdef0\t-\tdiscard\trejected: edited prepare.mjs',
        '',
      ].join('\n'),
    );
  });

  it('sanitises tabs and newlines in free text so a row stays one line with four columns', async () => {
    const log = createResultsTsv({ path: join(dir, 'results.tsv') });
    await log.append({
      iteration: 0,
      candidateId: 'abc',
      score: 1,
      status: 'baseline',
      description: 'base\tline\nwith\r\nbreaks',
    });
    const lines = (await readFile(join(dir, 'results.tsv'), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]?.split('\t')).toEqual(['abc', '1', 'keep', 'base line with breaks']);
  });

  it('reads back exactly what it wrote (statuses and full-precision scores)', async () => {
    const log = createResultsTsv({ path: join(dir, 'results.tsv') });
    const rows = [
      { iteration: 0, candidateId: 'aaaaaaa', score: 3.141592653589793, status: 'baseline', description: 'baseline' },
      { iteration: 1, candidateId: 'bbbbbbb', score: 3.1, status: 'kept', description: 'x' },
      { iteration: 2, candidateId: 'ccccccc', score: 3.2, status: 'reverted', description: 'y' },
      { iteration: 3, candidateId: 'ddddddd', score: null, status: 'crash', description: 'z (crash: timed out)' },
      { iteration: 4, candidateId: 'eeeeeee', score: null, status: 'rejected', description: 'rejected: w' },
    ] as const;
    for (const r of rows) await log.append(r);
    expect(await log.read()).toEqual(rows);
  });

  it('reads a missing file as no rows', async () => {
    expect(await createResultsTsv({ path: join(dir, 'none.tsv') }).read()).toEqual([]);
  });

  it('accepts seed 003 header "commit metric status description"', () => {
    expect(parseAutoIterateTsv('commit\tmetric\tstatus\tdescription\nabc\t1.5\tkeep\tbaseline\n')).toHaveLength(1);
  });

  it('fails with RESULTS_CORRUPT naming the line when a row has the wrong column count', async () => {
    await writeFile(join(dir, 'results.tsv'), `${AUTO_ITERATE_TSV_HEADER}\nabc\t1\tkeep\tbaseline\nbroken line\n`);
    await expect(createResultsTsv({ path: join(dir, 'results.tsv') }).read()).rejects.toMatchObject({
      code: 'RESULTS_CORRUPT',
      message: expect.stringContaining('results.tsv:3'),
    });
  });

  it('fails with RESULTS_CORRUPT on an unknown header', () => {
    expect(() => parseAutoIterateTsv('iter\tcomposite\n1\t2\n')).toThrow(
      /expected the auto-iterate header "commit score status description"; found "iter composite" \(2 columns\)/,
    );
  });

  it('a 5-column karpathy/autoresearch results.tsv is named as such, with no advice to move it away', () => {
    const karpathy = 'commit\tval_bpb\tmemory_gb\tstatus\tdescription\na1b2c3d\t0.997900\t44.0\tkeep\tbaseline\n';
    let message = '';
    try {
      parseAutoIterateTsv(karpathy, '/w/results.tsv');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('/w/results.tsv:1: expected the auto-iterate header');
    expect(message).toContain(
      'it looks like a karpathy/autoresearch results.tsv (5 columns: commit val_bpb memory_gb status description)',
    );
    expect(message).not.toMatch(/move the file/);
  });

  it(
    'a last row without its final newline is a torn row: RESULTS_CORRUPT ' +
      'naming the line (a row cut inside its description is not accepted)',
    () => {
      const cut = `${AUTO_ITERATE_TSV_HEADER}\nabc\t1\tkeep\tbaseline\nbcd\t0.5\tkeep\tlower the learning ra`;
      expect(() => parseAutoIterateTsv(cut)).toThrow(
        expect.objectContaining({
          code: 'RESULTS_CORRUPT',
          details: expect.objectContaining({ line: 3, torn: true }),
          message: expect.stringContaining('results.tsv:3: the last row has no final newline'),
        }),
      );
      expect(parseAutoIterateTsv(`${cut}te\n`)).toHaveLength(2);
    },
  );

  it(
    'an append after a last line that lost its newline writes the newline ' + 'first: the new row is not glued on',
    async () => {
      const path = join(dir, 'results.tsv');
      await writeFile(path, `${AUTO_ITERATE_TSV_HEADER}\nabc\t1\tkeep\tbaseline`);
      await createResultsTsv({ path }).append({
        iteration: 1,
        candidateId: 'bcdefgh',
        score: 0.5,
        status: 'kept',
        description: 'x',
      });
      expect(await readFile(path, 'utf8')).toBe(
        `${AUTO_ITERATE_TSV_HEADER}\nabc\t1\tkeep\tbaseline\nbcdefgh\t0.5\tkeep\tx\n`,
      );
      expect(await createResultsTsv({ path }).read()).toHaveLength(2);
    },
  );
});

describe('the agent prompt’s history in the auto-iterate form', () => {
  it('formatAutoIterateHistory gives the prompt the results.tsv block exactly as the file reads', () => {
    const rows = [
      { iteration: 0, candidateId: 'abc1234def', score: 3.2, status: 'baseline', description: 'baseline' },
      { iteration: 1, candidateId: 'bcd2345efa', score: null, status: 'rejected', description: 'edited prepare.mjs' },
    ] as const;
    const context = {
      iteration: 2,
      attempt: 0,
      history: rows,
      baseline: 3.2,
      best: 3.2,
      direction: 'minimize',
      hints: [],
      signal: new AbortController().signal,
    } as const;
    const prompt = buildAgentPrompt('Lower val_bpc.', context, formatAutoIterateHistory);
    expect(prompt).toContain(
      [
        '## Results so far (results.tsv)',
        AUTO_ITERATE_TSV_HEADER,
        'abc1234\t3.2\tkeep\tbaseline',
        'bcd2345\t-\tdiscard\trejected: edited prepare.mjs',
        '',
        '## Your task',
      ].join('\n'),
    );
  });
});
