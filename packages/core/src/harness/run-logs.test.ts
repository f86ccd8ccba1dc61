import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keepRunLog, keptLogName, listKeptLogs } from './run-logs.js';

let dir: string;
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'loop-run-logs-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('keepRunLog (issue 32 item 16)', () => {
  it(
    'copies a run log to <iteration>.log, a re-run to ' +
      '<iteration>.r<repeat>.log, and a later attempt of the same iteration ' +
      'replaces it',
    async () => {
      const log = join(dir, 'run.log');
      const keep = { dir: join(dir, 'logs'), count: 10 };
      writeFileSync(log, 'first attempt\n');
      await keepRunLog(log, keep, 3);
      writeFileSync(log, 'repaired attempt\n');
      await keepRunLog(log, keep, 3);
      writeFileSync(log, 'repeat 1\n');
      await keepRunLog(log, keep, 3, 1);
      expect(readFileSync(join(keep.dir, '3.log'), 'utf8')).toBe('repaired attempt\n');
      expect(readFileSync(join(keep.dir, keptLogName(3, 1)), 'utf8')).toBe('repeat 1\n');
      expect(readdirSync(keep.dir).sort()).toEqual(['3.log', '3.r1.log']); // no temp file left
    },
  );

  it('keeps only the newest count logs by iteration (not by finishing order), and ignores other files', async () => {
    const log = join(dir, 'run.log');
    const keep = { dir: join(dir, 'logs'), count: 3 };
    writeFileSync(log, 'x\n');
    for (const i of [0, 2, 1, 5, 4, 3]) await keepRunLog(log, keep, i);
    writeFileSync(join(keep.dir, 'notes.txt'), 'mine');
    expect((await listKeptLogs(keep.dir)).map((l) => l.name)).toEqual(['3.log', '4.log', '5.log']);
    expect(readdirSync(keep.dir)).toContain('notes.txt');
  });

  it('count 0 keeps nothing and creates no folder; a missing folder lists as empty', async () => {
    writeFileSync(join(dir, 'run.log'), 'x\n');
    await keepRunLog(join(dir, 'run.log'), { dir: join(dir, 'logs'), count: 0 }, 1);
    expect(readdirSync(dir)).toEqual(['run.log']);
    expect(await listKeptLogs(join(dir, 'logs'))).toEqual([]);
  });
});
