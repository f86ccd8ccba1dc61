import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@loop/core';
import { readJson } from '@loop/core/files';
import type { CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { withConfigLines } from '../config-error-lines.js';
import { applyRunFlags } from '../apply-run-flags.js';
import { parseResultsFile } from '../read/results-source.js';
import type { PlotPoint } from '../report/results.js';
import { AUTORESEARCH_CONFIG_KIND } from './autoresearch-config.js';
import { runAutoresearchPreset } from './autoresearch-run.js';
import { loadAutoresearchConfig, type LoadedAutoresearchConfig } from './load-autoresearch-config.js';

/**
 * `loop run` / `loop resume` of an autoresearch config: one pass (a second call resumes from
 * results.tsv), its chat lines and summary on stdout. Ctrl-C aborts the pass, which restores its
 * best snapshot. Exit 0 when it stopped by its rules or by Ctrl-C (the pass returned: its best
 * snapshot is restored), 1 when it halted (4 for restore-failed).
 */
export async function runAutoresearchCommand(
  io: CliIo,
  file: string,
  flags: Record<string, unknown> = {},
): Promise<number> {
  const read = await loadAutoresearchConfig(file);
  const loaded = { ...read, config: applyRunFlags(AUTORESEARCH_CONFIG_KIND, read.config, flags, file) };
  await assertHarnessFilesExist(loaded);
  const controller = new AbortController();
  const onSigint = () => {
    io.stdout.write('interrupt: stopping the pass after restoring its best snapshot\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  io.stdout.write(
    `config    ${loaded.file}\nworkspace ${loaded.dir}  ` +
      `task ${loaded.config.taskId}  (autoresearch ${loaded.config.mode} ` +
      `pass)\n`,
  );
  try {
    const result = await runAutoresearchPreset({
      config: loaded.config,
      dir: loaded.dir,
      output: (line) => io.stdout.write(`${line}\n`),
      signal: controller.signal,
    });
    if (result.halted) return result.halted === 'restore-failed' ? EXIT_CODES.RESTORE_FAILED : EXIT_CODES.FAILED;
    return EXIT_CODES.STOPPED;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
}

/**
 * Refuses a pass whose harness files are missing before anything runs, naming each one as missing
 * (the pass itself would report a missing rubric file as `HARNESS_TAMPERED`, as if it had been
 * edited): `rubricFiles`, `harnessFiles` and `reflection.promptFile`, relative to the workspace.
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` (exit 2) with one issue per missing file, at its line of the config.
 */
export async function assertHarnessFilesExist(loaded: LoadedAutoresearchConfig): Promise<void> {
  const c = loaded.config;
  const named: Array<[string, string]> = [
    ...c.rubricFiles.map((f, i): [string, string] => [`rubricFiles.${i}`, f]),
    ...c.harnessFiles.map((f, i): [string, string] => [`harnessFiles.${i}`, f]),
    ['reflection.promptFile', c.reflection.promptFile],
  ];
  const seen = new Set<string>();
  const issues = named
    .filter(([, f]) => !seen.has(f) && (seen.add(f), !existsSync(join(loaded.dir, f))))
    .map(([path, f]) => ({
      path,
      message:
        `${f} is missing in ${loaded.dir}; write it (loop init --preset ` +
        `autoresearch writes a starter one of each harness file that is missing) ` +
        `and commit it`,
    }));
  if (issues.length > 0) throw await withConfigLines(new ConfigError('autoresearch', issues), loaded);
}

/** Where an autoresearch pass stands, as `loop status` reports it. */
export interface PassStatus {
  /** `autoresearch`. */
  readonly preset: 'autoresearch';
  /** The workspace. */
  readonly dir: string;
  /** The task id. */
  readonly taskId: string;
  /** results.tsv. */
  readonly results: string;
  /** The rows, baseline first (empty before the first run). */
  readonly rows: readonly PlotPoint[];
  /** `.aid/pipeline/state.json`'s autoresearch entry, when there is one. */
  readonly state: unknown;
}

/** Reads an autoresearch pass's results.tsv and state.json (takes no lock). */
export async function readPassStatus(loaded: LoadedAutoresearchConfig): Promise<PassStatus> {
  const text = await readFile(loaded.results, 'utf8').catch(() => undefined);
  const rows = text === undefined || text === '' ? [] : (await parseResultsFile(text, loaded.results)).points;
  const state = await readJson(join(loaded.dir, '.aid', 'pipeline', 'state.json')).catch(() => undefined);
  return {
    preset: 'autoresearch',
    dir: loaded.dir,
    taskId: loaded.config.taskId,
    results: loaded.results,
    rows,
    state,
  };
}

/** `loop status` text of an autoresearch pass: counts, best, the last `last` rows. */
export function formatPassStatus(s: PassStatus, last = 5): string {
  const lines = [`workspace ${s.dir}  (autoresearch task ${s.taskId})`];
  if (s.rows.length === 0)
    return [...lines, `no pass here yet (no ${s.results}); start one with "loop run"`].join('\n');
  const scored = s.rows.filter((r) => (r.kind === 'keep' || r.kind === 'baseline') && r.score !== null);
  const best = scored.length > 0 ? Math.max(...scored.map((r) => r.score as number)) : undefined;
  const n = (k: PlotPoint['kind']) => s.rows.filter((r) => r.kind === k).length;
  lines.push(
    `iteration ${s.rows.at(-1)!.iteration}`,
    `best      ${best ?? '-'} (baseline ${s.rows[0]?.score ?? '-'}, higher is better)`,
    `counts    keep ${n('keep')}  discard ${n('discard')}  ` +
      `crash ${n('crash')}${n('halted') > 0 ? `  halted ${n('halted')}` : ''}`,
  );
  lines.push(`last ${Math.min(last, s.rows.length)} of ${s.rows.length} rows (${s.results}):`);
  for (const r of s.rows.slice(-last))
    lines.push(
      (
        `  ${String(r.iteration).padStart(4)} ` +
        ` ${(r.score === null ? '-' : String(r.score)).padStart(8)} ` +
        ` ${r.status.padEnd(16)}  ${r.description}`
      ).trimEnd(),
    );
  return lines.join('\n');
}
