/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The progress plot checked in a real headless browser: Debian's chromium, driven by
// playwright-core. `loop report` writes the HTML page of a real results.tsv (the ML tuning demo's,
// test/fixtures/ml-tuning), chromium opens it from disk, and the test inspects the rendered page:
// the SVG and its marks (counted and placed by the browser's layout), the title counts, the table,
// that the page loads nothing, and a screenshot PNG whose pixels carry the plot's colours.
//
// Skipped, with the reason, when the browser is absent (`apt-get install -y chromium`).
// LOOP_CHROMIUM names another executable; LOOP_SCREENSHOT_DIR keeps the screenshots.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { PLOT_COLORS } from '../src/report/plot.js';
import { marks, pixelCounts, type Marks } from './rendered-plot.js';

const CHROMIUM = process.env['LOOP_CHROMIUM'] ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const SKIP_REASON =
  `${CHROMIUM} not found: install Debian's chromium (apt-get install -y ` + `chromium) or set LOOP_CHROMIUM`;
const FIXTURE = fileURLToPath(new URL('./fixtures/ml-tuning/', import.meta.url));

/** The flags that work on this machine's closed network (no sandbox as root, no background connections). */
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

let tmp: string;
let context: BrowserContext | undefined;
let shots: string;

/** Runs `loop report` in-process and returns the HTML page's path. */
async function report(results: string, html: string, ...extra: string[]): Promise<string> {
  const out: string[] = [];
  const sink = { write: (s: string) => (out.push(s), true) } as unknown as NodeJS.WritableStream;
  const code = await runCli(['report', results, '--html', html, '--out', html.replace(/\.html$/, '.svg'), ...extra], {
    stdout: sink,
    stderr: sink,
    cwd: tmp,
    tty: false,
  });
  expect(code, out.join('')).toBe(0);
  return html;
}

/** Opens a page from disk and records every request it makes. */
async function open(html: string): Promise<{ page: Page; requests: string[] }> {
  const page = await context!.newPage();
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
  return { page, requests };
}

describe('the HTML report in headless chromium', () => {
  beforeAll(async () => {
    if (!HAVE_CHROMIUM) return;
    tmp = mkdtempSync(join(tmpdir(), 'loop-browser-'));
    shots = process.env['LOOP_SCREENSHOT_DIR'] ?? join(tmp, 'shots');
    mkdirSync(shots, { recursive: true });
    // A new, empty profile per run (launchPersistentContext owns --user-data-dir).
    context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1100, height: 800 },
      deviceScaleFactor: 1,
    });
  });

  afterAll(async () => {
    await context?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it(
    'renders the ML tuning demo results.tsv: 13 points, the title counts, ' +
      'the table, no requests, a screenshot in the plot colours',
    async (ctx) => {
      if (!HAVE_CHROMIUM) ctx.skip(SKIP_REASON);
      // The demo's results.tsv with its .loop/state.json beside it (direction: minimize).
      const dir = join(tmp, 'ml-tuning');
      mkdirSync(join(dir, '.loop'), { recursive: true });
      writeFileSync(join(dir, 'results.tsv'), readFileSync(join(FIXTURE, 'results.tsv')));
      writeFileSync(join(dir, '.loop', 'state.json'), readFileSync(join(FIXTURE, '.loop', 'state.json')));
      const html = await report(join(dir, 'results.tsv'), join(dir, 'progress.html'));
      const { page, requests } = await open(html);

      // The page: title, summary with the counts, and loads nothing but itself.
      expect(await page.title()).toBe('score progress');
      expect(await page.locator('h1').textContent()).toBe('score progress');
      expect(await page.locator('#summary').textContent()).toContain(
        '12 experiments: 2 kept, 10 discarded, 0 crashed; lower is better; best 3.206479.',
      );
      expect(requests).toEqual([pathToFileURL(html).href]);

      // The plot: laid out at its size, every row a mark.
      const m = await marks(page);
      expect(m.svg.width).toBeGreaterThan(900);
      expect(m.svg.height).toBeGreaterThan(420);
      expect(m.title).toBe('score progress: 12 experiments, 2 kept, 10 discarded, 0 crashed');
      expect(m.subtitle).toBe('lower is better; best 3.206479'); // as the page's summary rounds it
      expect(m.kept).toHaveLength(3); // the baseline and two keeps
      expect(m.discarded).toHaveLength(10);
      expect(m.crashes).toHaveLength(0);
      expect(m.bestLines).toBe(1);
      expect(m.labels).toEqual(['baseline', 'n_embd 8 -> 10', 'lr_decay 1 -> 0.707']);
      expect(m.kept.map((k) => k.fill)).toEqual([PLOT_COLORS.baseline, PLOT_COLORS.keep, PLOT_COLORS.keep]);
      // Every mark inside the SVG; experiments left to right; lower (better) scores drawn lower.
      for (const p of [...m.kept, ...m.discarded]) {
        expect(p.x).toBeGreaterThan(m.svg.left);
        expect(p.x).toBeLessThan(m.svg.right);
        expect(p.y).toBeGreaterThan(m.svg.top);
        expect(p.y).toBeLessThan(m.svg.bottom);
      }
      const [baseline, keep1, keep2] = m.kept as [Marks['kept'][0], Marks['kept'][0], Marks['kept'][0]];
      expect(baseline.x).toBeLessThan(keep1.x);
      expect(keep1.x).toBeLessThan(keep2.x);
      expect(baseline.y).toBeLessThan(keep1.y); // 3.231962 above 3.210585
      expect(keep1.y).toBeLessThan(keep2.y); // 3.210585 above 3.206479
      // The worst discard (3.303039, context_length 3 -> 2 at #10) is the highest dot.
      expect(Math.min(...m.discarded.map((d) => d.y))).toBeLessThan(baseline.y);

      // The table: one row per line of results.tsv, status classes, the running best.
      const rows = page.locator('#results tbody tr');
      expect(await rows.count()).toBe(13);
      expect(await page.locator('#results tbody tr.keep').count()).toBe(2);
      expect(await page.locator('#results tbody tr.baseline').count()).toBe(1);
      expect(await page.locator('#results tbody tr.discard').count()).toBe(10);
      expect(await page.locator('#results thead th').allTextContents()).toEqual([
        'iteration',
        'commit',
        'score',
        'status',
        'best so far',
        'description',
      ]);
      expect(await rows.nth(7).locator('td').allTextContents()).toEqual([
        '7',
        '59628e2',
        '3.206479',
        'keep',
        '3.206479',
        'lr_decay 1 -> 0.707',
      ]);
      expect(await rows.nth(12).locator('td').allTextContents()).toEqual([
        '12',
        '8a64336',
        '3.240213',
        'discard',
        '3.206479',
        'context_length 3 -> 4',
      ]);

      // The screenshot: the whole page, and the plot alone, whose pixels carry the plot's colours.
      const full = await page.screenshot({ path: join(shots, 'ml-tuning-report.png'), fullPage: true });
      expect(full.subarray(1, 4).toString()).toBe('PNG');
      const plot = await page.locator('figure#plot > svg').screenshot({ path: join(shots, 'ml-tuning-plot.png') });
      const px = await pixelCounts(page, plot, {
        keep: PLOT_COLORS.keep,
        discard: PLOT_COLORS.discard,
        baseline: PLOT_COLORS.baseline,
        crash: PLOT_COLORS.crash,
      });
      expect(px['keep']).toBeGreaterThan(120); // two dots and the legend's (the step line is drawn at 0.7 opacity)
      expect(px['discard']).toBeGreaterThan(200); // ten grey dots
      expect(px['baseline']).toBeGreaterThan(20); // the baseline dot
      expect(px['crash']).toBeLessThan(100); // no crashes: only the legend's red dot
      await page.close();
    },
  );

  it(
    'the inline SVG is responsive (viewBox, width 100%, height auto): in a ' +
      '1000 px window the latest point is inside the window; the .svg file ' +
      'keeps its pixel size',
    async (ctx) => {
      if (!HAVE_CHROMIUM) ctx.skip(SKIP_REASON);
      const dir = join(tmp, 'ml-tuning-narrow');
      mkdirSync(join(dir, '.loop'), { recursive: true });
      writeFileSync(join(dir, 'results.tsv'), readFileSync(join(FIXTURE, 'results.tsv')));
      writeFileSync(join(dir, '.loop', 'state.json'), readFileSync(join(FIXTURE, '.loop', 'state.json')));
      const html = await report(join(dir, 'results.tsv'), join(dir, 'progress.html'));
      const standalone = readFileSync(join(dir, 'progress.svg'), 'utf8');
      expect(standalone).toMatch(/^<svg [^>]*width="\d+" height="\d+" viewBox="0 0 \d+ \d+"/);
      const { page } = await open(html);
      await page.setViewportSize({ width: 1000, height: 800 });
      const svgTag = await page.evaluate(() => {
        const svg = document.querySelector('figure#plot > svg')!;
        return {
          width: svg.getAttribute('width'),
          height: svg.getAttribute('height'),
          viewBox: svg.getAttribute('viewBox'),
          innerWidth: window.innerWidth,
          scrollWidth: document.documentElement.scrollWidth,
        };
      });
      expect(svgTag.width).toBe('100%');
      expect(svgTag.height).toBeNull();
      expect(svgTag.viewBox).toMatch(/^0 0 \d+ \d+$/);
      expect(svgTag.scrollWidth).toBeLessThanOrEqual(svgTag.innerWidth); // no horizontal scrolling
      const m = await marks(page);
      expect(m.svg.right).toBeLessThanOrEqual(svgTag.innerWidth);
      const latest = [...m.kept, ...m.discarded].reduce((a, b) => (b.x > a.x ? b : a));
      expect(latest.x).toBeLessThan(m.svg.right);
      expect(latest.x).toBeLessThan(svgTag.innerWidth);
      // Height follows the aspect ratio of the viewBox.
      const [, , vw, vh] = svgTag.viewBox!.split(' ').map(Number) as [number, number, number, number];
      expect(m.svg.height / m.svg.width).toBeCloseTo(vh / vw, 2);
      await page.close();
    },
  );

  it(
    'an autoresearch log with crashes, and a log that is all crashes, ' + 'render their crash marks along the bottom',
    async (ctx) => {
      if (!HAVE_CHROMIUM) ctx.skip(SKIP_REASON);
      const header = 'iter\tcomposite\tdelta\tquality\tpass_rate\tcoverage\tstatus\tsnapshot\tutc';
      const row = (i: number, c: string, status: string) =>
        `${i}\t${c}\t0\t${c}\t1\t100\t${status}\t00${i}-snap\t2026-11-30T04:57:1${i}.000Z`;
      const mixed = join(tmp, 'autoresearch.tsv');
      writeFileSync(
        mixed,
        [
          header,
          row(0, '6.00', 'baseline'),
          row(1, '7.50', 'kept'),
          row(2, '', 'crash'),
          row(3, '7.00', 'reverted'),
          row(4, '', 'crash'),
          row(5, '8.00', 'kept'),
        ].join('\n') + '\n',
      );
      const a = await open(await report(mixed, join(tmp, 'autoresearch.html')));
      const am = await marks(a.page);
      expect(am.title).toBe('composite progress: 5 experiments, 2 kept, 1 discarded, 2 crashed');
      expect(am.kept).toHaveLength(3);
      expect(am.discarded).toHaveLength(1);
      expect(am.crashes).toHaveLength(2);
      // Crashes sit below every scored dot, on the x axis.
      for (const c of am.crashes)
        expect(c.y).toBeGreaterThan(Math.max(...am.kept.map((k) => k.y), ...am.discarded.map((d) => d.y)));
      expect(await a.page.locator('#results tbody tr.crash').count()).toBe(2);
      expect(await a.page.locator('#results thead th').nth(1).textContent()).toBe('snapshot');
      await a.page.screenshot({ path: join(shots, 'autoresearch-report.png'), fullPage: true });
      await a.page.close();

      const crashes = join(tmp, 'crashes.tsv');
      writeFileSync(
        crashes,
        'commit\tscore\tstatus\tdescription\na1\tcrash\tcrash\tbaseline crashed\nb2\tcrash\tcrash\tboom\n',
      );
      const c = await open(await report(crashes, join(tmp, 'crashes.html'), '--direction', 'lower'));
      const cm = await marks(c.page);
      expect(cm.subtitle).toBe('no scored experiments (every row crashed)');
      expect(cm.crashes).toHaveLength(2);
      expect(cm.kept).toHaveLength(0);
      expect(cm.bestLines).toBe(0); // no running best to draw
      expect(await c.page.locator('#results tbody tr').count()).toBe(2);
      await c.page.close();
    },
  );

  it('thousands of rows: 3000 experiments render as 3001 marks and 3001 table rows', async (ctx) => {
    if (!HAVE_CHROMIUM) ctx.skip(SKIP_REASON);
    const lines = ['commit\tscore\tstatus\tdescription', 'c0\t100\tkeep\tbaseline'];
    let best = 100;
    for (let i = 1; i <= 3000; i += 1) {
      const score = 100 - Math.log1p(i) * 5 + ((i * 7919) % 13) - 4;
      if (i % 500 === 0) lines.push(`c${i}\tcrash\tcrash\toom ${i}`);
      else if (score < best) {
        best = score;
        lines.push(`c${i}\t${score.toFixed(4)}\tkeep\tstep ${i}`);
      } else lines.push(`c${i}\t${score.toFixed(4)}\tdiscard\ttry ${i}`);
    }
    const big = join(tmp, 'big.tsv');
    writeFileSync(big, lines.join('\n') + '\n');
    const started = Date.now();
    const { page } = await open(await report(big, join(tmp, 'big.html'), '--direction', 'lower'));
    const m = await marks(page);
    expect(m.kept.length + m.discarded.length + m.crashes.length).toBe(3001);
    expect(m.crashes).toHaveLength(6);
    expect(await page.locator('#results tbody tr').count()).toBe(3001);
    expect(Date.now() - started).toBeLessThan(60_000);
    await page.close();
  });
});
