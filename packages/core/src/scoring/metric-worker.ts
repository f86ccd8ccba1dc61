import { Worker } from 'node:worker_threads';
import { EXTRACT_SOURCE, type Extracted, type MetricMatch } from './metric-extract.js';

/** What {@link extractInWorker} reports. */
export type WorkerExtraction =
  | { readonly kind: 'done'; readonly found: Extracted }
  | { readonly kind: 'timeout'; readonly timeoutMs: number }
  | { readonly kind: 'failed'; readonly message: string };

/** Options of {@link extractInWorker}. */
export interface WorkerExtractionOptions {
  /** Absolute path of the file to read (the run log or the metric file). */
  readonly path: string;
  /** The pattern. */
  readonly pattern: RegExp;
  /** Which matching line counts. */
  readonly match: MetricMatch;
  /** Lines are cut to this many characters before matching. */
  readonly maxLineLength: number;
  /**
   * The worker is terminated when matching takes longer than this many ms, counted from when the
   * worker has the text and starts matching (a worker's start-up and the file read on a loaded
   * machine do not count).
   */
  readonly timeoutMs: number;
}

// The worker reads the file itself (the text never crosses threads) and runs the same function
// the main thread would (EXTRACT_SOURCE), one request at a time, for as long as it lives.
// `eval: true` keeps it one source for the tests and the build.
const WORKER_SOURCE =
  `
const { parentPort } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const extract = ${EXTRACT_SOURCE};
parentPort.on('message', (job) => {
  let text;
  try { text = readFileSync(job.path, 'utf8'); }
  catch (error) { parentPort.postMessage({ kind: 'failed', message: String(error && error.message || error) }); ` +
  `return; }
  parentPort.postMessage({ kind: 'started' });
  parentPort.postMessage({ kind: 'done', found: extract(text, job.source, job.flags, job.match, job.maxLineLength) ` +
  `});
});
`;

/** Idle workers kept for the next extraction (more run at once when several score at once). */
const MAX_IDLE = 2;
const idle: Worker[] = [];
let started = 0;

/** How many extraction workers this process has started (for tests: reuse keeps it at 1). */
export function extractionWorkersStarted(): number {
  return started;
}

function takeWorker(): Worker {
  const reused = idle.pop();
  if (reused) return reused;
  started += 1;
  const worker = new Worker(`(() => {${WORKER_SOURCE}})()`, { eval: true });
  worker.unref();
  // A worker that dies while idle is dropped from the pool; one in use is settled by its caller.
  worker.on('exit', () => {
    const at = idle.indexOf(worker);
    if (at >= 0) idle.splice(at, 1);
  });
  return worker;
}

/**
 * Runs {@link extractFromText} on a file in a worker thread, terminated after `timeoutMs`: a
 * pattern that backtracks for hours costs at most the timeout, and the main thread stays free for
 * Ctrl-C and SIGTERM meanwhile. Workers are reused (starting one costs ~30 ms, about the whole
 * git CLI cycle the issue 13 benchmark compares an iteration with): a finished extraction puts its
 * worker back in a pool of at most 2 idle ones; a timed-out or failed worker is terminated and
 * never reused. Workers are `unref`ed, so they never keep the process alive.
 *
 * @returns `done` with what was found (or `undefined`), `timeout`, or `failed` (the file could
 *   not be read: missing, a directory, no permission; or the worker died).
 */
export function extractInWorker(options: WorkerExtractionOptions): Promise<WorkerExtraction> {
  return new Promise((resolve) => {
    const worker = takeWorker();
    let settled = false;
    const settle = (result: WorkerExtraction, reusable: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      resolve(result);
      if (reusable && idle.length < MAX_IDLE) idle.push(worker);
      else void worker.terminate();
    };
    let timer: NodeJS.Timeout | undefined;
    const onMessage = (message: WorkerExtraction | { kind: 'started' }) => {
      if (message.kind === 'started')
        timer = setTimeout(() => settle({ kind: 'timeout', timeoutMs: options.timeoutMs }, false), options.timeoutMs);
      else settle(message, true);
    };
    const onError = (error: Error) => settle({ kind: 'failed', message: error.message }, false);
    const onExit = (code: number) =>
      settle({ kind: 'failed', message: `the extraction worker exited with code ${code}` }, false);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage({
      path: options.path,
      source: options.pattern.source,
      flags: options.pattern.flags,
      match: options.match,
      maxLineLength: options.maxLineLength,
    });
  });
}
