import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * Numbers per path in a {@link StatPool} result: mode, size, ino, mtimeMs, ctimeMs (mode 0: nothing there or an error).
 */
export const STAT_FIELDS = 5;

/**
 * The worker's code (CommonJS, run with `eval`, so it needs no file of its own in either the
 * sources or the bundle): it keeps path lists by key and answers `lstat` requests over a range of
 * one list with a transferred Float64Array of {@link STAT_FIELDS} numbers per path. It only reads.
 */
const WORKER_CODE = `
const { parentPort } = require('node:worker_threads');
const { lstatSync } = require('node:fs');
const lists = new Map();
parentPort.on('message', (m) => {
  if (m.type === 'paths') {
    lists.set(m.key, { root: m.root, paths: m.paths });
    while (lists.size > 4) lists.delete(lists.keys().next().value);
    return;
  }
  const started = performance.now();
  const list = lists.get(m.key);
  const n = m.to - m.from;
  const out = new Float64Array(n * ${STAT_FIELDS});
  if (list !== undefined) {
    for (let i = 0; i < n; i += 1) {
      let s;
      try {
        s = lstatSync(list.root + '/' + list.paths[m.from + i], { throwIfNoEntry: false });
      } catch {
        s = undefined;
      }
      if (s === undefined) continue;
      const k = i * ${STAT_FIELDS};
      out[k] = s.mode;
      out[k + 1] = s.size;
      out[k + 2] = s.ino;
      out[k + 3] = s.mtimeMs;
      out[k + 4] = s.ctimeMs;
    }
  }
  parentPort.postMessage({ id: m.id, ok: list !== undefined, out, ms: performance.now() - started }, [out.buffer]);
});
`;

/**
 * `lstat` of many working-tree files on a second thread while the walk's own thread reads
 * directories and stats the rest (issue 13: a whole-tree scan is one `lstat` per file, and on
 * Node each costs about twice the system call; git's `preload-index` spreads them over threads
 * the same way). One worker per process, started on first use and `unref`ed so it never keeps a
 * process alive; any failure (no worker threads, the worker died) makes {@link statPool} return
 * `undefined` from then on and the walk stats everything itself.
 */
export interface StatPool {
  /**
   * Stats `paths[from..to)` under `root` (absolute) on the worker. `key` names the list: it is
   * sent once and kept (the last 4 keys) while the same key is used again.
   *
   * @returns {@link STAT_FIELDS} numbers per path and the worker's time on them (ms), or
   *   `undefined` when the worker failed.
   */
  stat(key: string, root: string, paths: readonly string[], from: number, to: number): Promise<StatReply | undefined>;
}

/** What the worker answers: {@link STAT_FIELDS} numbers per path, and how long it took (ms, on the worker's clock). */
export interface StatReply {
  /** The numbers, path by path. */
  readonly out: Float64Array;
  /** The worker's time from receiving the request to answering it, ms. */
  readonly ms: number;
}

let pool: StatPool | undefined;
let broken = false;

function startPool(): StatPool {
  const worker = new Worker(WORKER_CODE, { eval: true });
  worker.unref();
  const sent = new Set<string>();
  const waiting = new Map<number, (reply: StatReply | undefined) => void>();
  let ids = 0;
  const fail = () => {
    broken = true;
    pool = undefined;
    for (const resolve of waiting.values()) resolve(undefined);
    waiting.clear();
  };
  worker.on('message', (m: { id: number; ok: boolean; out: Float64Array; ms: number }) => {
    const resolve = waiting.get(m.id);
    waiting.delete(m.id);
    if (waiting.size === 0) worker.unref();
    resolve?.(m.ok ? { out: m.out, ms: m.ms } : undefined);
  });
  worker.on('error', fail);
  worker.on('exit', fail);
  return {
    stat: (key, root, paths, from, to) =>
      new Promise((resolve) => {
        if (broken) return resolve(undefined);
        try {
          if (!sent.has(key)) {
            worker.postMessage({ type: 'paths', key, root, paths });
            sent.add(key);
            while (sent.size > 4) sent.delete(sent.values().next().value as string);
          }
          ids += 1;
          waiting.set(ids, resolve);
          // Referenced while a request is out, so a pending scan keeps the process alive.
          worker.ref();
          worker.postMessage({ type: 'stat', id: ids, key, from, to });
        } catch {
          fail();
          resolve(undefined);
        }
      }),
  };
}

/**
 * The process's stat pool, or `undefined` when there is only one CPU (a second thread would only
 * compete with the first), a worker failed before, or the environment sets `LOOP_STAT_WORKER=0`
 * (for measuring the walk without it).
 */
export function statPool(): StatPool | undefined {
  if (broken || availableParallelism() < 2 || process.env.LOOP_STAT_WORKER === '0') return undefined;
  try {
    pool ??= startPool();
  } catch {
    broken = true;
    return undefined;
  }
  return pool;
}
