import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoopError } from '@loop/core';
import { cleanupSetup, OLD, setup } from './snapshot-rollback-fixture.js';

afterEach(cleanupSetup);

describe('snapshot rollback (seed 002): restoreBest', () => {
  it(
    'restoreBest restores the best kept version: the baseline overlaid by ' +
      'the kept snapshots up to it (seed 002 on stop step 1)',
    async () => {
      const { ws, rollback } = setup();
      await rollback.start();
      const cp1 = await rollback.checkpoint(1, { files: ['src/a.ts'] });
      ws.write('src/a.ts', 'a1');
      const best = await rollback.keep(cp1, undefined);
      const cp2 = await rollback.checkpoint(2, { files: ['src/lib/b.ts'] });
      ws.write('src/lib/b.ts', 'b2');
      await rollback.keep(cp2, undefined);
      await rollback.restoreBest(best);
      expect([ws.read('src/a.ts'), ws.read('src/lib/b.ts')]).toEqual(['a1', 'b0']);
    },
  );

  it('restoreBest falls back to the baseline when nothing was kept', async () => {
    const { ws, rollback } = setup();
    const { baselineId } = await rollback.start();
    await rollback.checkpoint(1);
    ws.write('src/a.ts', 'a1'); // an interrupted edit
    await rollback.restoreBest(baselineId);
    expect(ws.read('src/a.ts')).toBe('a0');
    expect(Math.abs(statSync(join(ws.dir, 'src/a.ts')).mtimeMs - OLD)).toBeLessThanOrEqual(1);
  });

  it(
    'restoreBest checks the target snapshot readable first: an absent ' +
      'baseline is RESTORE_FAILED and nothing is copied (seed 002: test -r the ' +
      'target snapshot before the baseline fallback)',
    async () => {
      const { ws, rollback, snaps } = setup();
      const { baselineId } = await rollback.start();
      ws.write('src/a.ts', 'a1');
      ws.write('src/lib/b.ts', 'b1');
      rmSync(join(snaps, baselineId, 'src/lib/b.ts'));
      const error = (await rollback.restoreBest(baselineId).catch((e: unknown) => e)) as LoopError;
      expect(error.code).toBe('RESTORE_FAILED');
      expect(error.message).toMatch(/of src\/lib\/b\.ts is absent or unreadable.*nothing was restored/);
      expect([ws.read('src/a.ts'), ws.read('src/lib/b.ts')]).toEqual(['a1', 'b1']);
    },
  );

  it('restoreBest of an unknown id is RESTORE_FAILED, not a copy of a missing path', async () => {
    const { rollback } = setup();
    await rollback.start();
    await expect(rollback.restoreBest('009-kept-nope-20261130T040000Z')).rejects.toMatchObject({
      code: 'RESTORE_FAILED',
    });
    await expect(rollback.restoreBest('HEAD')).rejects.toMatchObject({ code: 'RESTORE_FAILED' });
  });
});
