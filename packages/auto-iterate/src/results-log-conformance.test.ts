import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type IterationRecord } from '@loop/core';
import { sanitizeCell, withRecordData } from '@loop/core/files';
import { describeResultsLog } from '@loop/internal-test-utils';
import { withDimensionsTsv } from './dimensions-tsv.js';
import { createResultsTsv, REJECTED_PREFIX } from './results-tsv.js';

// The shared ResultsLog rules (@loop/testing) on auto-iterate's results.tsv, alone and as auto-iterate composes it.

/** What seed 001's four columns keep: a 7-character commit, the score, keep/discard/crash, one line of description. */
const tsvKept = (r: IterationRecord): IterationRecord => {
  const description = sanitizeCell(r.description);
  return {
    iteration: r.iteration,
    candidateId: sanitizeCell(r.candidateId).slice(0, 7),
    score: r.score,
    status: r.status === 'halted' ? 'reverted' : r.status,
    description: r.status === 'rejected' ? REJECTED_PREFIX + description : description,
  };
};

async function fixture(compose: (path: string, dir: string) => ReturnType<typeof createResultsTsv>) {
  const dir = await mkdtemp(join(tmpdir(), 'loop-results-tsv-'));
  const path = join(dir, 'results.tsv');
  return {
    open: () => compose(path, dir),
    corrupt: async () => {
      const lines = (await readFile(path, 'utf8')).split('\n');
      lines[1] = 'not\ta row';
      await writeFile(path, lines.join('\n'));
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

describeResultsLog('results-tsv', async () => ({
  ...(await fixture((path) => createResultsTsv({ path }))),
  kept: tsvKept,
}));

describeResultsLog('results-tsv + dimensions-tsv + record-data (as auto-iterate runs it)', async () => ({
  ...(await fixture((path, dir) =>
    withRecordData(withDimensionsTsv(createResultsTsv({ path }), { path: join(dir, 'dimensions.tsv') }), {
      path: join(dir, '.loop', 'records.jsonl'),
    }),
  )),
  kept: (r) => ({ ...tsvKept(r), ...(r.data ? { data: r.data } : {}) }),
}));
