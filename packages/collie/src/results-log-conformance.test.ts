import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeResultsLog } from '@loop/internal-test-utils';
import { createCollieResultsLog } from './collie-rows.js';

// The shared ResultsLog rules (@loop/testing) on collie's loop-results.jsonl: one JSON row per
// candidate, every field kept; row 0 is derived from state.json's baseline_scalar, never appended.
describeResultsLog('collie-rows', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'loop-collie-rows-'));
  const path = join(dir, 'loop-results.jsonl');
  return {
    open: () => createCollieResultsLog(path, 7.5),
    derivedBaseline: { iteration: 0, candidateId: '', score: 7.5, status: 'baseline', description: 'baseline' },
    corrupt: async () => {
      const lines = (await readFile(path, 'utf8')).split('\n');
      lines[0] = '{"iteration": 1, "candidateId": ';
      await writeFile(path, lines.join('\n'));
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});
