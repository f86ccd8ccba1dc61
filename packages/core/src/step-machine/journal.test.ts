import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { appendJournal, readJournal } from './journal.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const rec = { t: 'intent' as const, run: 1, visit: 0, step: 's', effect: 'e' };

it('a missing journal reads as empty; appended records read back in order, one JSON line each', async () => {
  const path = join(dir, 'sub', 'journal.jsonl');
  expect(await readJournal(path)).toEqual([]);
  await appendJournal(path, rec);
  await appendJournal(path, { ...rec, t: 'done', result: { ok: 1 } });
  expect(await readJournal(path)).toEqual([rec, { ...rec, t: 'done', result: { ok: 1 } }]);
  expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(3);
});

it(
  'a last line cut short by a kill is dropped and truncated away, so the ' + 'next append starts on its own line',
  async () => {
    const path = join(dir, 'journal.jsonl');
    await appendJournal(path, rec);
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"t":"done","ru`);
    expect(await readJournal(path)).toEqual([rec]);
    await appendJournal(path, { ...rec, t: 'done' });
    expect(await readJournal(path)).toEqual([rec, { ...rec, t: 'done' }]);
  },
);

it('a complete line that is not a record is STATE_CORRUPT naming the line, and the file is left as it is', async () => {
  const path = join(dir, 'journal.jsonl');
  const text = `${JSON.stringify(rec)}\n{"t":"maybe"}\n${JSON.stringify(rec)}\n`;
  writeFileSync(path, text);
  await expect(readJournal(path)).rejects.toMatchObject({ code: 'STATE_CORRUPT', details: { line: 2 } });
  writeFileSync(path, 'not json\n');
  await expect(readJournal(path)).rejects.toMatchObject({ code: 'STATE_CORRUPT', details: { line: 1 } });
  expect(readFileSync(path, 'utf8')).toBe('not json\n');
});

it('an append that cannot write is STATE_WRITE_FAILED naming the path', async () => {
  writeFileSync(join(dir, 'file'), 'x');
  await expect(appendJournal(join(dir, 'file', 'journal.jsonl'), rec)).rejects.toMatchObject({
    code: 'STATE_WRITE_FAILED',
    details: { path: join(dir, 'file', 'journal.jsonl') },
  });
});
