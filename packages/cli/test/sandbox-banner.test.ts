// The sandbox line of the run banner tells the truth: the agent under sandbox: auto does not see
// the host /tmp. In-process CLI, real git, real bwrap (skipped where it does not work).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { bwrapStatus } from '@loop/core/process';
import { afterEach, describe, expect, it } from 'vitest';
import { createMutatorWorkspace } from './fixtures/mutator-workspace.js';
import { runCliCaptured } from './fixtures/run-cli.js';

const bwrap = bwrapStatus();
let ws: string | undefined;
let host: string | undefined;
afterEach(() => {
  for (const dir of [ws, host]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('loop run: the agent sandbox announced', () => {
  it.skipIf(!bwrap.available)(
    `sandbox: auto prints "agent in bwrap ... the host /tmp is hidden", and ` +
      `the agent indeed cannot see a file in the host ` +
      `/tmp${bwrap.available ? '' : ` — skipped: ${bwrap.reason}`}`,
    async () => {
      host = mkdtempSync(join(tmpdir(), 'loop-host-tmp-'));
      const marker = join(host, 'on-the-host');
      writeFileSync(marker, 'x');
      // The agent reports what it sees as its edit: x = 1 and "hidden" when the host file is not there.
      const command =
        `cat > /dev/null; if [ -e ${marker} ]; then echo '{"x":2}' > ` +
        `config.json; echo "DESCRIPTION: host tmp visible"; else echo '{"x":1}' > ` +
        `config.json; echo "DESCRIPTION: host tmp hidden"; fi`;
      ws = await createMutatorWorkspace('loop-sandbox-banner-', {
        maxIterations: 1,
        proposer: { type: 'agent', command, goal: 'lower score', sandbox: 'auto' },
      });
      const run = await runCliCaptured(ws, ['run']);
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      expect(run.out).toContain(
        'sandbox   agent in bwrap: writes only config.json; its /tmp is a ' +
          'private, empty tmpfs: the host /tmp is hidden',
      );
      expect(run.out.indexOf('sandbox   ')).toBeLessThan(run.out.search(/^iter {3}0 /m));
      const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      expect(rows[1]?.description).toBe('host tmp hidden');
    },
  );
});
