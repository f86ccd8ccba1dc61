import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { diffIteration } from '../read/diff.js';
import { readIterationLog } from '../read/run-log.js';
import { parseResults } from '../report/results.js';
import { discoverRuns, type RunRef } from './discover.js';
import { dashboardHtml } from './page.js';
import { readRunView, runSignature, type RunView } from './run-view.js';

/** Options of {@link startDashboard}. */
export interface DashboardOptions {
  /**
   * Show each run's sealed-holdout scores (issue 33; `loop dashboard --holdout`): only where no agent with network
   * access runs. @default false
   */
  holdout?: boolean;
  /** The folder whose runs are shown ({@link discoverRuns}). */
  root: string;
  /** The port; 0 picks a free one. @default 0 */
  port?: number;
  /** How often the files are looked at, in ms. @default 500 */
  pollMs?: number;
}

/** A running dashboard. */
export interface Dashboard {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** The folder it shows. */
  readonly root: string;
  /** The runs as last read. */
  runs(): readonly RunView[];
  /** Looks at the files now (what each poll does); resolves when the changed runs have been sent. */
  refresh(): Promise<void>;
  /** Ends the event streams, stops polling and closes the server. */
  close(): Promise<void>;
}

/** How much of an iteration's log `GET /api/runs/<id>/log/<n>` returns (its end). @default 262144 bytes */
export const ITERATION_LOG_BYTES = 256 * 1024;

/** vega's browser bundle (build/vega.min.js) from node_modules: the page loads it from this server, never a CDN. */
function vegaBundlePath(): string {
  return join(dirname(createRequire(import.meta.url).resolve('vega/vega-schema.json')), 'vega.min.js');
}

/**
 * `loop dashboard`: serves, on 127.0.0.1 only, a page of the runs under `root` and an event
 * stream (server-sent events, `GET /events`) that sends a run's {@link RunView} whenever its
 * files or lock change (polled every `pollMs`: results.tsv, state.json, the logs), a `gone` event
 * when a run disappears. JSON: `GET /api/runs`, `GET /api/runs/<id>/diff/<iteration>` (`loop
 * diff`'s {@link diffIteration}; 400 with `{ error }` for an unknown iteration or an
 * autoresearch run), `GET /api/runs/<id>/log/<iteration>` (the end of `.loop/logs/<n>.log`, `loop log
 * --output`'s {@link readIterationLog}; 400 with `{ error }` when that log is not kept). `GET /vega.min.js` is vega
 * from node_modules. Requests naming another Host
 * than 127.0.0.1/localhost are refused (403: no DNS rebinding).
 */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const { root } = options;
  const pollMs = options.pollMs ?? 500;
  const refs = new Map<string, RunRef>();
  const views = new Map<string, RunView>();
  const signatures = new Map<string, string>();
  const listeners = new Set<(event: string, data: unknown) => Promise<void>>();
  const vega = await readFile(vegaBundlePath());
  let closed = false;
  let endStreams: () => void = () => {};
  const ended = new Promise<void>((r) => (endStreams = r));

  const broadcast = async (event: string, data: unknown) => {
    await Promise.all([...listeners].map((send) => send(event, data).catch(() => undefined)));
  };
  let chain: Promise<void> = Promise.resolve();
  let busy = false;
  const look = async () => {
    const found = await discoverRuns(root);
    for (const id of [...refs.keys()]) {
      if (!found.some((r) => r.id === id)) {
        refs.delete(id);
        views.delete(id);
        signatures.delete(id);
        await broadcast('gone', { id });
      }
    }
    for (const ref of found) {
      refs.set(ref.id, ref);
      const sig = await runSignature(ref);
      if (signatures.get(ref.id) === sig) continue;
      const view = await readRunView(ref, { holdout: options.holdout === true });
      signatures.set(ref.id, sig);
      views.set(ref.id, view);
      await broadcast('run', view);
    }
  };
  // One look at a time; a refresh asked for during a look runs after it.
  const refresh = (): Promise<void> => {
    busy = true;
    chain = chain.then(look, look).finally(() => (busy = false));
    return chain;
  };
  await refresh();

  const app = new Hono();
  app.use('*', async (c, next) => {
    const host = (c.req.header('host') ?? '').replace(/:\d+$/, '');
    if (host !== '127.0.0.1' && host !== 'localhost') return c.text('forbidden host', 403);
    await next();
  });
  app.get('/', (c) => c.html(dashboardHtml(root)));
  app.get('/vega.min.js', (c) =>
    c.body(vega, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'max-age=3600' }),
  );
  app.get('/api/runs', (c) => c.json([...views.values()]));
  app.get('/api/runs/:id{.+}/diff/:iteration', async (c) => {
    const ref = refs.get(c.req.param('id'));
    const n = Number(c.req.param('iteration'));
    if (!ref) return c.json({ error: `no run ${c.req.param('id')}` }, 404);
    try {
      const data = parseResults(await readFile(ref.results, 'utf8'), ref.results);
      return c.json(await diffIteration(ref.dir, data, n));
    } catch (error) {
      return c.json({ error: (error as Error).message }, 400);
    }
  });
  app.get('/api/runs/:id{.+}/log/:iteration', async (c) => {
    const ref = refs.get(c.req.param('id'));
    const n = Number(c.req.param('iteration'));
    if (!ref) return c.json({ error: `no run ${c.req.param('id')}` }, 404);
    if (!Number.isInteger(n) || n < 0)
      return c.json(
        { error: `the iteration must be a whole number, found ${JSON.stringify(c.req.param('iteration'))}` },
        400,
      );
    try {
      return c.json(await readIterationLog(ref.dir, n, ITERATION_LOG_BYTES));
    } catch (error) {
      return c.json({ error: (error as Error).message }, 400);
    }
  });
  app.get('/events', (c) =>
    streamSSE(c, async (stream) => {
      const send = (event: string, data: unknown) => stream.writeSSE({ event, data: JSON.stringify(data) });
      listeners.add(send);
      await send('hello', { root, ids: [...views.keys()] });
      for (const view of views.values()) await send('run', view);
      await Promise.race([ended, new Promise<void>((r) => stream.onAbort(r))]);
      listeners.delete(send);
    }),
  );

  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: options.port ?? 0 }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const timer = setInterval(() => {
    if (!busy) refresh().catch(() => undefined);
  }, pollMs);
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    root,
    runs: () => [...views.values()],
    refresh,
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      endStreams();
      await chain.catch(() => undefined);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}
