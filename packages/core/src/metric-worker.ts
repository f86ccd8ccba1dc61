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
  /** The worker is terminated after this many ms. */
  readonly timeoutMs: number;
}

// The worker reads the file itself (the text never crosses threads) and runs the same function
// the main thread would (EXTRACT_SOURCE). `eval: true` keeps it one source for the tests and the build.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const extract = ${EXTRACT_SOURCE};
let text;
try { text = readFileSync(workerData.path, 'utf8'); }
catch (error) { parentPort.postMessage({ kind: 'failed', message: String(error && error.message || error) }); return; }
parentPort.postMessage({ kind: 'done', found: extract(text, workerData.source, workerData.flags, workerData.match, workerData.maxLineLength) });
`;

/**
 * Runs {@link extractFromText} on a file in a worker thread, terminated after `timeoutMs`: a
 * pattern that backtracks for hours costs at most the timeout, and the main thread stays free for
 * Ctrl-C and SIGTERM meanwhile. The worker is `unref`ed, so it never keeps the process alive.
 *
 * @returns `done` with what was found (or `undefined`), `timeout`, or `failed` (the file could
 *   not be read: missing, a directory, no permission; or the worker died).
 */
export function extractInWorker(options: WorkerExtractionOptions): Promise<WorkerExtraction> {
  return new Promise((resolve) => {
    const worker = new Worker(`(() => {${WORKER_SOURCE}})()`, {
      eval: true,
      workerData: { path: options.path, source: options.pattern.source, flags: options.pattern.flags, match: options.match, maxLineLength: options.maxLineLength },
    });
    worker.unref();
    let settled = false;
    const settle = (result: WorkerExtraction) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
      void worker.terminate();
    };
    const timer = setTimeout(() => settle({ kind: 'timeout', timeoutMs: options.timeoutMs }), options.timeoutMs);
    worker.on('message', (message: WorkerExtraction) => settle(message));
    worker.on('error', (error) => settle({ kind: 'failed', message: error.message }));
    worker.on('exit', (code) => settle({ kind: 'failed', message: `the extraction worker exited with code ${code}` }));
  });
}
