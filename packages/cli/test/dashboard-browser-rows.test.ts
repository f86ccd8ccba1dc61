/// <reference lib="dom" />
// loop dashboard in headless chromium (as dashboard-browser.test.ts: Debian's chromium driven by
// playwright-core, skipped with the reason when it is missing), issue 32 item 11: a long run's plot
// labels only what stays readable (checked with the browser's own text geometry), cards are in
// path order even when a run appears later, and every row's diff and run log is reachable (pages,
// a class filter, an iteration input), not only the last 20 rows'.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const ITERATIONS = 25;
const CRASH_AT = 2;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();
const loop = (cwd: string, ...args: string[]) => runCliCaptured(cwd, args);

let tmp: string;
let context: BrowserContext | undefined;
let dashboard: Dashboard | undefined;

/**
 * A real run of 25 iterations (real git, a real harness process) whose iteration 2 crashes with a message on stderr.
 */
async function realRun(ws: string): Promise<void> {
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(
    join(ws, 'eval.mjs'),
    `import { readFileSync } from 'node:fs';\nif (process.env.LOOP_ITERATION ` +
      `=== '${CRASH_AT}') { console.error('boom in iteration ${CRASH_AT}'); ` +
      `process.exit(1); }\nconst { x } = JSON.parse(readFileSync('config.json', ` +
      `'utf8'));\nconsole.log('score: ' + ((x - 3) ** 2 + 1));\n`,
  );
  git(ws, 'init', '-q', '-b', 'main');
  await loop(ws, 'init');
  const doc = parseDocument(readFileSync(join(ws, 'loop.config.yaml'), 'utf8'));
  // continuous: no draw repeats a config (a repeat is a duplicate row with no run and no log)
  doc.setIn(['proposer'], { type: 'mutator', file: 'config.json', seed: 3, space: { x: { min: -10, max: 10 } } });
  doc.setIn(['maxIterations'], ITERATIONS);
  doc.setIn(['maxRepairAttempts'], 0);
  writeFileSync(join(ws, 'loop.config.yaml'), doc.toString());
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', 'init');
  const run = await loop(ws, 'run');
  expect(run.code, run.err).toBe(0);
}

/** A results.tsv of `n` rows (no workspace): a slowly improving score with noise, a keep whenever it beats the best. */
function longResults(path: string, n: number): number {
  const rows = ['commit\tscore\tstatus\tdescription', 'a000000\t100\tkeep\tbaseline'];
  let best = 100;
  let keeps = 0;
  for (let i = 1; i < n; i += 1) {
    const score = 100 - Math.log(i + 1) * 5 + ((i * 7919) % 13);
    if (score < best) {
      best = score;
      keeps += 1;
      rows.push(
        `k${String(i).padStart(6, '0')}\t${score}\tkeep\tlearning rate ` +
          `0.0${i % 10} -> 0.0${(i + 3) % 10}, layers ${i % 7}`,
      );
    } else rows.push(`d${String(i).padStart(6, '0')}\t${score}\tdiscard\ttry ${i}`);
  }
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `${rows.join('\n')}\n`);
  return keeps;
}

/** The ids of the cards, top to bottom. */
const cardIds = (page: Page) =>
  page.evaluate(() => [...document.querySelectorAll('section.run')].map((s) => s.getAttribute('data-id')));
/** The iterations of the rows the table of card `id` shows, top to bottom. */
const shownRows = (page: Page, id: string) =>
  page.evaluate(
    (i) =>
      [...document.querySelectorAll(`section.run[data-id="${i}"] table.rows tr[data-iteration]`)].map((tr) =>
        Number(tr.getAttribute('data-iteration')),
      ),
    id,
  );

describe('loop dashboard in headless chromium: long runs (issue 32 item 11)', () => {
  let keepsInBig = 0;
  beforeAll(async () => {
    if (!HAVE_CHROMIUM) return;
    tmp = mkdtempSync(join(tmpdir(), 'loop-dashboard-rows-'));
    await realRun(join(tmp, 'runs', 'm-real'));
    keepsInBig = longResults(join(tmp, 'runs', 'z-big', 'results.tsv'), 3200);
    dashboard = await startDashboard({ root: join(tmp, 'runs'), pollMs: 100 });
    context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1100, height: 900 },
      deviceScaleFactor: 1,
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await dashboard?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it(
    "a 3,200-row run's plot labels at most 12 kept points and no two drawn " +
      'labels overlap on screen; the others keep their tooltip',
    async (ctx) => {
      if (!HAVE_CHROMIUM) ctx.skip(SKIP_REASON);
      const page = await context!.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(dashboard!.url, { waitUntil: 'load' });
      const plot = 'section.run[data-id="z-big/results.tsv"] .plot';
      await page.waitForSelector(`${plot}[data-marks="3200"]`, { timeout: 60_000 });
      // Each label's box on screen: its local (unrotated) bounding box through the element's transform, as 4 corners.
      const boxes = await page.evaluate(
        (sel) =>
          [...document.querySelectorAll(`${sel} g.keptLabels text`)].map((t) => {
            const e = t as SVGTextElement;
            const b = e.getBBox();
            const m = e.getScreenCTM()!;
            return [
              [b.x, b.y],
              [b.x + b.width, b.y],
              [b.x + b.width, b.y + b.height],
              [b.x, b.y + b.height],
            ].map(([x, y]) => [m.a * x! + m.c * y! + m.e, m.b * x! + m.d * y! + m.f]);
          }),
        plot,
      );
      expect(keepsInBig).toBeGreaterThan(20);
      expect(boxes.length).toBeGreaterThanOrEqual(3);
      expect(boxes.length).toBeLessThanOrEqual(12);
      const overlap = (p: number[][], q: number[][]) => {
        for (const poly of [p, q]) {
          for (let i = 0; i < 4; i += 1) {
            const [x1, y1] = poly[i]!;
            const [x2, y2] = poly[(i + 1) % 4]!;
            const proj = (pts: number[][]) => pts.map(([x, y]) => x! * (y1! - y2!) + y! * (x2! - x1!));
            const [a, b] = [proj(p), proj(q)];
            if (Math.max(...a) <= Math.min(...b) || Math.max(...b) <= Math.min(...a)) return false;
          }
        }
        return true;
      };
      for (let i = 0; i < boxes.length; i += 1)
        for (let j = i + 1; j < boxes.length; j += 1)
          expect(overlap(boxes[i]!, boxes[j]!), `labels ${i} and ${j}`).toBe(false);
      // Every kept dot is drawn (labelled or not), so hovering any of them shows its description.
      expect(await page.locator(`${plot} g.keptDots > path`).count()).toBe(keepsInBig + 1);
      console.log(
        `[dashboard labels] 3,200 rows: ${keepsInBig + 1} kept points (baseline included), ${boxes.length} labelled`,
      );
      const shots = process.env['LOOP_SCREENSHOT_DIR'];
      if (shots) await page.locator(plot).screenshot({ path: join(shots, 'dashboard-3200-rows.png') });
      expect(errors).toEqual([]);
      await page.close();
    },
    120_000,
  );

  it('cards stay in path order when a run appears after the page opened', async (ctx) => {
    if (!HAVE_CHROMIUM) ctx.skip(SKIP_REASON);
    const page = await context!.newPage();
    await page.goto(dashboard!.url, { waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelectorAll('section.run').length === 2);
    expect(await cardIds(page)).toEqual(['m-real/results.tsv', 'z-big/results.tsv']);
    longResults(join(tmp, 'runs', 'a-late', 'results.tsv'), 5);
    await page.waitForFunction(() => document.querySelectorAll('section.run').length === 3, undefined, {
      timeout: 30_000,
    });
    expect(await cardIds(page)).toEqual(['a-late/results.tsv', 'm-real/results.tsv', 'z-big/results.tsv']);
    await page.close();
  }, 60_000);

  it(
    "every row's diff and log is reachable: 20 rows a page, older pages, a " + 'crash filter, and an iteration input',
    async (ctx) => {
      if (!HAVE_CHROMIUM) ctx.skip(SKIP_REASON);
      const page = await context!.newPage();
      await page.goto(dashboard!.url, { waitUntil: 'load' });
      const id = 'm-real/results.tsv';
      const card = page.locator(`section.run[data-id="${id}"]`);
      await page.waitForSelector(`section.run[data-id="${id}"] table.rows tr[data-iteration]`);
      const newest = Array.from({ length: 20 }, (_, i) => ITERATIONS - i);
      expect(await shownRows(page, id)).toEqual(newest);
      // The older page: the crash of iteration 2 and the baseline, with their diff and log buttons.
      await card.locator('button.older').click();
      expect(await shownRows(page, id)).toEqual([5, 4, 3, 2, 1, 0]);
      expect(await card.locator('button.older').isDisabled()).toBe(true);
      const crashRow = card.locator(`tr[data-iteration="${CRASH_AT}"]`);
      expect(await crashRow.getAttribute('class')).toBe('crash');
      await crashRow.locator('button.show-log').click();
      await page.waitForFunction(
        (i) =>
          (document.querySelector(`section.run[data-id="${i}"] pre.diff`)?.textContent ?? '').includes(
            'boom in iteration',
          ),
        id,
        { timeout: 30_000 },
      );
      expect(await card.locator('pre.diff').textContent()).toMatch(new RegExp(`^iteration ${CRASH_AT} {2}run output`));
      await crashRow.locator('button.show-diff').click();
      await page.waitForFunction(
        (i) =>
          (document.querySelector(`section.run[data-id="${i}"] pre.diff`)?.textContent ?? '').includes('config.json'),
        id,
        { timeout: 30_000 },
      );
      expect(await card.locator('pre.diff').textContent()).toMatch(new RegExp(`^iteration ${CRASH_AT} {2}crash`));
      await card.locator('button.newer').click();
      expect(await shownRows(page, id)).toEqual(newest);
      // The crash filter shows the crash on the first page; the iteration input opens any row's diff or log.
      await card.locator('select.row-filter').selectOption('crash');
      expect(await shownRows(page, id)).toEqual([CRASH_AT]);
      await card.locator('input.pick').fill('1');
      await card.locator('button.pick-diff').click();
      await page.waitForFunction(
        (i) => /^iteration 1 /.test(document.querySelector(`section.run[data-id="${i}"] pre.diff`)?.textContent ?? ''),
        id,
        { timeout: 30_000 },
      );
      await card.locator('input.pick').fill('0');
      await card.locator('button.pick-log').click();
      await page.waitForFunction(
        (i) =>
          /^iteration 0 {2}run output[^\n]*\nscore: 10\n$/.test(
            document.querySelector(`section.run[data-id="${i}"] pre.diff`)?.textContent ?? '',
          ),
        id,
        { timeout: 30_000 },
      );
      // The newest iteration's log is tailed beside run.log.
      expect(await card.locator('.logs summary').allTextContents()).toContain(
        `.loop/logs/${ITERATIONS}.log (last lines)`,
      );
      await page.close();
    },
    60_000,
  );
});
