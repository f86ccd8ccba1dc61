import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type {
  HostConfiguredRun,
  HostHostedLoop,
  HostResultsData,
  HostStepOutcome,
  HostSummary,
  HostTrial,
  LoopMcpHost,
} from './host.js';
import { McpToolError, noEditError } from './errors.js';
import { LOG_TAIL_BYTES, type StepResult } from './step-result.js';
import {
  agentChanges,
  clearEdit,
  dropHeldEdit,
  HELD_EDIT_REF,
  heldEdit,
  holdEdit,
  isUnderTargets,
  restoreEdit,
  treeHoldsEdit,
} from './held-edit.js';

interface Hosted {
  readonly loop: HostHostedLoop;
  readonly configured: HostConfiguredRun;
  readonly controller: AbortController;
  trial?: HostTrial;
  best?: { score: number | null; id: string };
  baseline: boolean;
  readonly crashes: Map<number, string>;
}

const isCode = (error: unknown, code: string) => (error as { code?: unknown } | undefined)?.code === code;

/**
 * Drives the workspace's loop as a host (auto-iterate's `open()`, core's ask/tell): one hosted
 * loop per server, opened at the first step (a resume when results.tsv has rows), holding the
 * workspace lock until it stops. After each `tell` a trial is asked for at once, so the agent's
 * next edit is made with a trial open and is evaluated in place. When no trial is open (the first
 * evaluation of a server, after `loop_run_iteration`, after a stop), the edit is held as a commit
 * under {@link HELD_EDIT_REF}, its paths put back as the last keep has them, the trial asked for
 * (baseline or resume first), the edit written back and the ref dropped: a kill in between
 * leaves the ref, and the next server puts the edit back first.
 */
export function createHostedSession(
  dir: string,
  getHost: () => Promise<LoopMcpHost>,
  configFile: (host: LoopMcpHost) => string,
) {
  let host!: LoopMcpHost;
  let hosted: Hosted | undefined;
  let inFlight: AbortController | undefined;
  let checkedHeld = false;

  const readRows = async (): Promise<HostResultsData | undefined> => {
    const source = await host.resolveResultsSource(dir, dir);
    return existsSync(source.results) ? host.readResultsOf(source) : undefined;
  };
  const runGit: typeof import('@loop/rollback-git/git').runGit = async (...args) =>
    (await import('@loop/rollback-git/git')).runGit(...args);
  const fullId = async (id: string) => (id ? (await runGit({ cwd: dir }, ['rev-parse', `${id}^{commit}`])).trim() : '');

  const prepare = async (): Promise<HostConfiguredRun> => {
    const loaded = await host.loadConfig(configFile(host));
    const rows = await readRows();
    const controller = new AbortController();
    const configured = host.prepareRun(loaded, {
      resume: (rows?.points.length ?? 0) > 0,
      signal: controller.signal,
      onWarning: () => {},
    });
    controllers.set(configured, controller);
    return configured;
  };
  const controllers = new WeakMap<HostConfiguredRun, AbortController>();

  const open = async (configured: HostConfiguredRun): Promise<Hosted> => {
    const loop = await configured.run.open();
    const h: Hosted = {
      loop,
      configured,
      controller: controllers.get(configured)!,
      baseline: false,
      crashes: new Map(),
    };
    loop.on('baseline', (e) =>
      Object.assign(h, { baseline: true, best: { score: e.record.score, id: e.record.candidateId } }),
    );
    loop.on('resumed', (e) => void (h.best = { score: e.best, id: e.bestId }));
    loop.on('kept', (e) => void (h.best = { score: e.record.score, id: e.record.candidateId }));
    loop.on('crash', (e) => void (e.willRepair ? undefined : h.crashes.set(e.record.iteration, e.logTail)));
    hosted = h;
    return h;
  };

  /** Runs `call` on `h`'s loop with `loop_stop` able to abort it; a loop an error or a stop ended is let go. */
  const drive = async <T>(h: Hosted, call: () => Promise<T>): Promise<T> => {
    inFlight = h.controller;
    try {
      const out = await call();
      if ((out as Partial<HostStepOutcome>)?.stopped) hosted = undefined;
      return out;
    } catch (error) {
      if (!isCode(error, 'EDIT_OUTSIDE_ARTIFACT') && !isCode(error, 'TRIAL_OPEN') && !isCode(error, 'TRIAL_UNKNOWN'))
        hosted = undefined;
      throw error;
    } finally {
      inFlight = undefined;
    }
  };

  /** Asks for a trial; `{ stopped }` when the loop stops instead (a stop policy at the resume). */
  const ask = async (h: Hosted): Promise<{ stopped?: HostSummary }> => {
    try {
      h.trial = await drive(h, () => h.loop.ask());
      return {};
    } catch (error) {
      const summary = (error as { details?: { summary?: HostSummary } }).details?.summary;
      if (isCode(error, 'LOOP_STOPPED') && summary) return { stopped: summary };
      throw error;
    }
  };

  /** The result of a step: the rows it appended (as results.tsv has them), the best, the crash's log. */
  const resultOf = async (
    h: Hosted | undefined,
    out: HostStepOutcome,
    repairs: readonly string[],
  ): Promise<StepResult> => {
    const points = (await readRows())?.points ?? [];
    const record = out.records.at(-1);
    const row = record ? points.find((p) => p.iteration === record.iteration) : undefined;
    const baseline = h?.baseline ? points.find((p) => p.kind === 'baseline') : undefined;
    if (h) h.baseline = false;
    const best = out.stopped ? { score: out.stopped.best, id: out.stopped.bestId } : h?.best;
    const n = record?.iteration;
    const log =
      n !== undefined && existsSync(join(dir, '.loop', 'logs', `${n}.log`)) ? `.loop/logs/${n}.log` : undefined;
    let logTail: string | undefined;
    if (record?.status === 'crash' && n !== undefined) {
      logTail = log ? (await host.readIterationLog(dir, n, LOG_TAIL_BYTES).catch(() => undefined))?.text : undefined;
      logTail ??= h?.crashes.get(n)?.slice(-LOG_TAIL_BYTES);
    }
    return {
      evaluated: row !== undefined,
      decision: row?.status ?? 'not-evaluated',
      iteration: n ?? null,
      score: row?.score ?? null,
      commit: await fullId(row?.id ?? ''),
      best: best?.score ?? null,
      bestId: await fullId(best?.id ?? ''),
      ...(baseline ? { baseline: host.logEntries({ metric: '', points: [baseline] })[0]! } : {}),
      ...(record?.error ? { reason: record.error } : {}),
      ...(record?.note && !record.error ? { note: record.note } : {}),
      ...(logTail !== undefined ? { logTail } : {}),
      ...(log ? { log } : {}),
      ...(out.stopped ? { stop: out.stopped.stop } : {}),
      ...(repairs.length > 0 ? { repairs } : {}),
    };
  };

  /** A held edit left by a server that was killed before it wrote it back: put back into a clean tree. */
  const recoverHeld = async (): Promise<string[]> => {
    if (checkedHeld) return [];
    checkedHeld = true;
    const oid = await heldEdit(dir);
    if (!oid) return [];
    if ((await agentChanges(dir)).length === 0) {
      const paths = await restoreEdit(dir, oid);
      await dropHeldEdit(dir);
      return [
        `the edit a stopped server held in ${HELD_EDIT_REF} ` +
          `(${paths.map((c) => c.path).join(', ')}) was put back into the tree`,
      ];
    }
    if (await treeHoldsEdit(dir, oid)) {
      await dropHeldEdit(dir);
      return [];
    }
    const kept = `refs/loop/mcp/held-edit-${oid.slice(0, 12)}`;
    await runGit({ cwd: dir }, ['update-ref', kept, oid]);
    await dropHeldEdit(dir);
    return [
      `an edit a stopped server held (${oid}) was not put back, as the tree ` +
        `has other changes: it is kept as ${kept} (git diff ${oid}^ ${oid})`,
    ];
  };

  const evaluate = async (description: string): Promise<StepResult> => {
    host = await getHost();
    const repairs = await recoverHeld();
    const changes = await agentChanges(dir);
    const configured = hosted?.configured ?? (await prepare());
    const targets = configured.resolved.targetFiles;
    // Without a hosted loop, a lock held means another process's loop (not this server's).
    if (changes.length === 0) throw noEditError(dir, targets, !hosted && (await host.isWorkspaceLocked(dir)));
    const outside = changes.filter((c) => !isUnderTargets(c.path, targets)).map((c) => c.path);
    if (outside.length > 0)
      throw new McpToolError(
        'OUTSIDE_TARGETS',
        `uncommitted changes outside the target files ` +
          `(${targets.join(', ')}): ${outside.join(', ')}; nothing was touched: ` +
          `commit or remove them first (loop_evaluate evaluates edits to the ` +
          `targets only)`,
      );
    let h = hosted;
    if (!h?.trial) {
      // No trial open while the agent edited: hold the edit in git, open one on the last kept state, write the edit
      // back.
      const oid = await holdEdit(dir, changes);
      await clearEdit(dir, changes);
      let opened: { stopped?: HostSummary };
      try {
        const fresh = !h;
        h ??= await open(configured);
        opened = await ask(h);
        if (fresh) repairs.push(...h.configured.run.rollback.repairs());
      } finally {
        await restoreEdit(dir, oid);
        await dropHeldEdit(dir);
      }
      if (opened.stopped) return resultOf(h, { records: [], stopped: opened.stopped }, repairs);
    }
    const open_ = h!;
    let out: HostStepOutcome;
    try {
      out = await drive(open_, () => open_.loop.tell(open_.trial!, { description }));
    } catch (error) {
      if (isCode(error, 'EDIT_OUTSIDE_ARTIFACT'))
        throw new McpToolError(
          'OUTSIDE_TARGETS',
          `${(error as Error).message} (nothing was touched; the edit is still in the tree)`,
        );
      throw error;
    }
    open_.trial = undefined;
    const result = await resultOf(open_, out, repairs);
    // The next edit is made with a trial open, so it is evaluated in place.
    if (!out.stopped) await ask(open_).catch(() => (hosted = undefined));
    return result;
  };

  const runIteration = async (): Promise<StepResult> => {
    host = await getHost();
    const repairs = await recoverHeld();
    const changes = await agentChanges(dir);
    if (changes.length > 0)
      throw new McpToolError(
        'DIRTY_EDIT',
        `the tree has uncommitted changes ` +
          `(${changes.map((c) => c.path).join(', ')}): call loop_evaluate for an ` +
          `edit of the targets, or commit or revert them, before ` +
          `loop_run_iteration`,
      );
    if (hosted?.trial) {
      // The open trial holds no edit: stopping rolls nothing back; the loop is opened again (a resume) for the step.
      await hosted.loop.stop("loop_run_iteration: the trial opened for the agent's next edit is closed");
      hosted = undefined;
    }
    const fresh = !hosted;
    const h = hosted ?? (await open(await prepare()));
    const out = await drive(h, () => h.loop.step());
    if (fresh) repairs.push(...h.configured.run.rollback.repairs());
    return resultOf(h, out, repairs);
  };

  return {
    evaluate,
    runIteration,
    /** Aborts the call in flight. @returns whether one was running. */
    stop: (): boolean => {
      if (!inFlight) return false;
      inFlight.abort();
      return true;
    },
    /**
     * At server exit, once no call runs: stops the loop, so candidates still in flight (async
     * schedule) are abandoned, their runs killed and working copies removed, and the lock released.
     * A trial open for the agent's next edit is left as it is: stopping it would revert the edit,
     * which stays in the tree for the next server to evaluate.
     */
    close: async (): Promise<void> => {
      const h = hosted;
      hosted = undefined;
      if (h && !h.trial) await h.loop.stop('the MCP server closed').catch(() => undefined);
    },
  };
}
