import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { describe, expect, it } from 'vitest';
// The same copy-into-a-repository-and-run helper as examples/skill-tuning (one copy, not two).
import { runExample } from '../../skill-tuning/src/example-run.js';

const EXAMPLE = fileURLToPath(new URL('..', import.meta.url));

describe('examples/memory-tuning', () => {
  it(
    'the scripted agent cleans the real memory folder end to end: ' +
      'duplicates, a chat log, stale and empty notes go, the index is fixed, ' +
      'every question still answered; deleting the index is discarded',
    async () => {
      const run = await runExample(EXAMPLE, [
        'memory',
        'memory.questions.json',
        'loop.config.yaml',
        'scripted-agent.mjs',
      ]);
      try {
        expect(run.code, run.output).toBe(0);
        const rows = parseAutoIterateTsv(readFileSync(join(run.dir, 'memory/results.tsv'), 'utf8'));
        expect(
          rows.map((r) => r.status),
          readFileSync(join(run.dir, 'memory/dimensions.tsv'), 'utf8'),
        ).toEqual(['baseline', 'kept', 'reverted', 'kept', 'kept', 'kept']);
        expect(rows[0]!.score).toBe(7.29);
        expect(rows.at(-1)!.score).toBe(10);
        const dims = readFileSync(join(run.dir, 'memory/dimensions.tsv'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split('\t'));
        expect(dims[0]).toEqual(['commit', 'score', 'status', 'retrieval', 'signal_noise', 'index']);
        // no fact was lost on the way
        expect(dims.slice(1).map((d) => d[3])).toEqual(['10', '10', '10', '10', '10', '10']);
        expect(dims[3]![5]).toBe('0'); // the discarded round: no index
        expect(run.git('ls-files', 'memory').split('\n')).toEqual([
          'memory/MEMORY.md',
          'memory/notes/deploys.md',
          'memory/notes/owners.md',
          'memory/notes/staging-db.md',
        ]);
      } finally {
        rmSync(run.dir, { recursive: true, force: true });
      }
    },
  );
});
