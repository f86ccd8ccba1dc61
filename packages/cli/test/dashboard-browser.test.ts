/// <reference lib="dom" />
// loop dashboard in a real headless browser (Debian's chromium driven by playwright-core, the
// launch options of report-browser.test.ts): the dashboard serves a temp folder holding a real
// auto-iterate workspace, the page is opened before the run starts, and a real `loop run`
// (in-process, a real git repository, a real harness process) appends its rows while the page
// watches. The harness blocks on a named pipe until the test lets each experiment finish, so the
// test can check that the plot gains each mark as its row lands, with no reload, while the run
// holds the lock ("running"), and then shows the stop reason. No request leaves 127.0.0.1.
//
// Skipped, with the reason, when the browser is absent (`apt-get install -y chromium`).
// LOOP_CHROMIUM names another executable; LOOP_SCREENSHOT_DIR keeps a screenshot.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runCliCaptured } from './fixtures/run-cli.js';
import { startDashboard, type Dashboard } from '../src/dashboard/server.js';

const CHROMIUM = process.env['LOOP_CHROMIUM'] ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const SKIP_REASON =
  `${CHROMIUM} not found: install Debian's chromium (apt-get install -y ` + `chromium) or set LOOP_CHROMIUM`;
/**
 * As report-browser.test.ts: the flags that work on a closed network (no sandbox as root, no background connections).
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ITERATIONS = 4;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

const loop = (cwd: string, ...args: string[]) => runCliCaptured(cwd, args);

let tmp: string;
let ws: string;
let gate: string;
let context: BrowserContext | undefined;
let dashboard: Dashboard | undefined;

/**
 * A workspace whose harness (eval.mjs) first reads the named pipe .loop/gate (blocking until the
 * test writes a line), then prints score = (x - 3)^2 + 1 for config.json's x.
 */
async function makeWorkspace(): Promise<void> {
  ws = join(tmp, 'runs', 'demo');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(
    join(ws, 'eval.mjs'),
    'import { readFileSync } from ' +
      "'node:fs';\nreadFileSync('.loop/gate');\nconst { x } = " +
      "JSON.parse(readFileSync('config.json', 'utf8'));\nconsole.log('x is ' + " +
      "x);\nconsole.log('score: ' + ((x - 3) ** 2 + 1));\n",
  );
  git(ws, 'init', '-q', '-b', 'main');
  await loop(ws, 'init');
  const doc = parseDocument(readFileSync(join(ws, 'loop.config.yaml'), 'utf8'));
  doc.setIn(['proposer'], {
    type: 'mutator',
    file: 'config.json',
    seed: 3,
    space: { x: { min: -10, max: 10, integer: true } },
  });
  doc.setIn(['maxIterations'], ITERATIONS);
  writeFileSync(join(ws, 'loop.config.yaml'), doc.toString());
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', 'init');
  mkdirSync(join(ws, '.loop'));
  gate = join(ws, '.loop', 'gate');
  execFileSync('mkfifo', [gate]);
}

/**
 * Lets the blocked harness run finish (an async write: its open() waits for the reader on a worker thread, not the
 * event loop).
 */
const release = () => writeFile(gate, 'go\n');

/**
 * The marks the page's plot of the run shows (dots, crosses, diamonds), as the page counted them after its last draw.
 */
const marksOf = (page: Page) =>
  page.evaluate(() => Number(document.querySelector('section.run .plot')?.getAttribute('data-marks') ?? '0'));

describe('loop dashboard in headless chromium', () => {
  beforeAll(async () => {
    if (!HAVE_CHROMIUM) return;
    tmp = mkdtempSync(join(tmpdir(), 'loop-dashboard-'));
    await makeWorkspace();
    dashboard = await startDashboard({ root: join(tmp, 'runs'), pollMs: 100 });
    context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1100, height: 900 },
      deviceScaleFactor: 1,
    });
  }, 60_000);

  afterAll(async () => {
    // A failed test may leave a release waiting for a reader: open the pipe once so it completes.
    if (gate && existsSync(gate)) closeSync(openSync(gate, constants.O_RDONLY | constants.O_NONBLOCK));
    await context?.close();
    await dashboard?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it(
    'the plot of a running loop gains a mark as each row lands, without a ' +
      'reload; running, then finished with its stop reason; diffs and the log ' +
      'tail; nothing requested off 127.0.0.1',
    async (ctx) => {
      if (!HAVE_CHROMIUM) ctx.skip(SKIP_REASON);
      const page = await context!.newPage();
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      let navigations = 0;
      page.on('framenavigated', (f) => (f === page.mainFrame() ? (navigations += 1) : 0));
      await page.goto(dashboard!.url, { waitUntil: 'load' });
      await page.evaluate(() => ((window as unknown as { sentinel: string }).sentinel = 'same page'));
      // The workspace is listed before its first row.
      await page.waitForSelector('section.run[data-id="demo/results.tsv"]');
      expect(await page.locator('section.run h2').textContent()).toBe('demo');
      expect(await page.locator('section.run .phase').textContent()).toBe('no rows yet');

      const run = loop(ws, 'run');
      const seen: number[] = [];
      for (let k = 0; k <= ITERATIONS; k += 1) {
        await release(); // the baseline, then each experiment
        await page.waitForFunction(
          (n) => Number(document.querySelector('section.run .plot')?.getAttribute('data-marks') ?? '0') === n,
          k + 1,
          { timeout: 30_000 },
        );
        seen.push(await marksOf(page));
        if (k < ITERATIONS) {
          // Still running: the loop holds the workspace lock while the next experiment waits on the gate.
          await page.waitForFunction(
            () => document.querySelector('section.run')?.getAttribute('data-phase') === 'running',
            undefined,
            { timeout: 30_000 },
          );
        }
      }
      const done = await run;
      expect(done.code, done.err).toBe(0);
      expect(seen).toEqual([1, 2, 3, 4, 5]);
      await page.waitForFunction(
        () => document.querySelector('section.run')?.getAttribute('data-phase') === 'stopped',
        undefined,
        { timeout: 30_000 },
      );
      expect(await page.locator('section.run .phase').textContent()).toMatch(/^finished: /);
      expect(await page.locator('section.run .phase').textContent()).toContain(
        String(dashboard!.runs()[0]!.stopReason),
      );
      // The same document all along: no reload, one navigation.
      expect(await page.evaluate(() => (window as unknown as { sentinel?: string }).sentinel)).toBe('same page');
      expect(navigations).toBe(1);

      // The plot as loop report draws it: the baseline and the kept among the dots, the title counts.
      const view = dashboard!.runs()[0]!;
      const kept = view.rows.filter((r) => r.kind === 'keep' || r.kind === 'baseline').length;
      expect(await page.locator('section.run .plot g.keptDots > path').count()).toBe(kept);
      expect(await page.locator('section.run .plot g.role-title-text text').textContent()).toContain(
        `${ITERATIONS} experiments`,
      );
      // The rows, newest first, and the diff of an experiment (loop diff's, from git).
      // header + baseline + experiments
      expect(await page.locator('section.run table.rows tr').count()).toBe(ITERATIONS + 2);
      await page.locator('section.run table.rows tr').nth(1).locator('button.show-diff').click();
      await page.waitForFunction(
        () => (document.querySelector('section.run pre.diff')?.textContent ?? '').includes('config.json'),
        undefined,
        { timeout: 30_000 },
      );
      expect(await page.locator('section.run pre.diff').textContent()).toMatch(new RegExp(`^iteration ${ITERATIONS} `));
      // The log tail: the harness's run.log of the last experiment.
      const log = view.logs.find((l) => l.name === 'run.log');
      expect(log?.tail).toMatch(/score: /);
      expect(await page.locator('section.run .logs pre.log').first().textContent()).toBe(log!.tail);

      // LOOP_SCREENSHOT_DIR keeps a screenshot of the finished page.
      const shots = process.env['LOOP_SCREENSHOT_DIR'];
      if (shots) await page.screenshot({ path: join(shots, 'dashboard.png'), fullPage: true });

      // Nothing but the dashboard's own origin: the page, vega from node_modules, the event stream, the diff.
      const origin = new URL(dashboard!.url).origin;
      expect(requests.length).toBeGreaterThanOrEqual(4);
      expect(requests.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
      expect(requests).toContain(`${origin}/vega.min.js`);
      await page.close();
    },
    120_000,
  );
});
