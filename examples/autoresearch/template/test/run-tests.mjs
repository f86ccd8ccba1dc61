// The module's tests and line coverage: `node test/run-tests.mjs` (run from the workspace root).
// Prints a vitest-style `Tests  N passed (M)` line, exits 1 on any failure, and writes the istanbul
// json-summary `coverage/coverage-summary.json` from V8's precise block coverage of src/slug.js.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const SOURCE = resolve('src/slug.js');
const CASES = [
  ['Hello World', 'hello-world'],
  ['  A--b ', 'a-b'],
  ['x', 'x'],
  ['', ''],
  ['Loop: 2 passes!', 'loop-2-passes'],
  ['--already-a-slug--', 'already-a-slug'],
];

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });

const { slugify } = await import(pathToFileURL(SOURCE).href);
let passed = 0;
for (const [input, want] of CASES) {
  try {
    assert.equal(slugify(input), want);
    passed += 1;
    console.log(`  ✓ slugify(${JSON.stringify(input)}) === ${JSON.stringify(want)}`);
  } catch (error) {
    console.log(`  ✗ slugify(${JSON.stringify(input)}): ${error.message.split('\n')[0]}`);
  }
}

const { result } = await session.post('Profiler.takePreciseCoverage');
session.disconnect();
const script = result.find((s) => s.url === pathToFileURL(SOURCE).href);
const text = readFileSync(SOURCE, 'utf8');
// Per-character execution counts: apply ranges from the widest to the narrowest, so the innermost wins.
const counts = new Array(text.length).fill(0);
const ranges = (script?.functions ?? []).flatMap((f) => f.ranges).sort((a, b) => b.endOffset - b.startOffset - (a.endOffset - a.startOffset));
for (const r of ranges) for (let i = r.startOffset; i < Math.min(r.endOffset, text.length); i += 1) counts[i] = r.count;
// A line is executable when it holds code (not blank, not comment-only, not closing brackets only);
// it is covered when its first code character ran.
let total = 0;
let covered = 0;
let offset = 0;
for (const line of text.split('\n')) {
  const trimmed = line.trim();
  if (trimmed && !trimmed.startsWith('//') && !/^[\]});,]+$/.test(trimmed)) {
    total += 1;
    if (counts[offset + line.indexOf(trimmed[0])] > 0) covered += 1;
  }
  offset += line.length + 1;
}
const pct = total === 0 ? 100 : Math.round((covered / total) * 10_000) / 100;
mkdirSync('coverage', { recursive: true });
writeFileSync('coverage/coverage-summary.json', `${JSON.stringify({ total: { lines: { total, covered, skipped: 0, pct } } })}\n`);

const failed = CASES.length - passed;
console.log(` Tests  ${failed ? `${failed} failed | ` : ''}${passed} passed (${CASES.length})`);
console.log(` Coverage  src/slug.js lines ${covered}/${total} (${pct}%)`);
process.exit(failed ? 1 : 0);
