// The folder of runs shared by the dashboard tests (dashboard-runs.test.ts: which folders are runs and
// what a run's view says; dashboard-server.test.ts: the server and the `loop dashboard` command): a
// finished and an interrupted auto-iterate workspace, an autoresearch pass, a malformed results.tsv, and
// folders that are not runs.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUTO_ITERATE_TSV_HEADER, formatAutoIterateRow } from '@loop/auto-iterate';
import { formatResultsRow, resultsHeader } from '@loop/autoresearch/results-tsv';
import { type IterationRecord } from '@loop/core';

/** One results.tsv row as auto-iterate writes it, newline included. */
export const row = (
  iteration: number,
  score: number | null,
  status: IterationRecord['status'],
  description: string,
): string => {
  const candidateId = `c0ffee${iteration}`.padEnd(40, '0');
  return `${formatAutoIterateRow({ iteration, candidateId, score, status, description })}` + `\n`;
};

/**
 * An auto-iterate workspace `root`/`name` (a .loop/ folder and results.tsv as the loop writes them) with
 * `rows` rows, and `state` as its .loop/state.json when given.
 */
export function workspace(root: string, name: string, rows: string[], state?: object): string {
  const dir = join(root, name);
  mkdirSync(join(dir, '.loop'), { recursive: true });
  writeFileSync(join(dir, 'results.tsv'), `${AUTO_ITERATE_TSV_HEADER}\n${rows.join('')}`);
  if (state) writeFileSync(join(dir, '.loop', 'state.json'), JSON.stringify(state));
  return dir;
}

/** Creates the folder of runs in a new temp folder and returns its path (the caller removes it). */
export function createRunsRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'loop-dashboard-server-'));
  workspace(
    root,
    'finished',
    [row(0, 10, 'baseline', 'baseline'), row(1, 9, 'kept', 'x 0 -> 1'), row(2, 12, 'reverted', 'x 1 -> 5')],
    { status: 'stopped', direction: 'minimize', stopReason: 'max-iterations', stopMessage: 'reached 2 iterations' },
  );
  workspace(root, 'group/interrupted', [row(0, 10, 'baseline', 'baseline')], {
    status: 'running',
    direction: 'minimize',
  });
  // An autoresearch pass (seed 002): its results.tsv under .aid/pipeline/autoresearch/<task>/.
  const header = resultsHeader('design');
  const ar = join(root, 'pass', '.aid', 'pipeline', 'autoresearch', 'task-1');
  mkdirSync(ar, { recursive: true });
  const cols = (c: string) => Object.fromEntries(header.slice(1, -3).map((h) => [h, h === 'composite' ? c : '1']));
  writeFileSync(
    join(ar, 'results.tsv'),
    [
      header.join('\t'),
      formatResultsRow(header, {
        iter: '0',
        columns: cols('6'),
        status: 'baseline',
        snapshot: '-',
        utc: '2026-12-01T00:00:00Z',
      }),
      formatResultsRow(header, {
        iter: '1',
        columns: cols('7'),
        status: 'kept',
        snapshot: '001-snap',
        utc: '2026-12-01T00:01:00Z',
      }),
    ].join('\n') + '\n',
  );
  // Not runs: node_modules, and a folder three levels down.
  mkdirSync(join(root, 'node_modules', 'x', '.loop'), { recursive: true });
  mkdirSync(join(root, 'a', 'b', 'c', '.loop'), { recursive: true });
  const bad = join(root, 'corrupt');
  mkdirSync(join(bad, '.loop'), { recursive: true });
  writeFileSync(join(bad, 'results.tsv'), 'when\twhat\nyesterday\tsomething\n');
  return root;
}
