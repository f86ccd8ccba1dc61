// End to end: the SDK's own Client over StdioClientTransport drives the real `loop mcp` on a real
// temporary git workspace (see fixture.ts).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOOP_MCP_RESOURCES, LOOP_MCP_TOOLS } from '../src/index.js';
import { CONFIG, callOn, fileAppears, gitIn, makeWorkspace, startServer } from './fixture.js';

let ws: string;
let client: Client;
const git = (...args: string[]) => gitIn(ws)(...args);
const call = <T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}) =>
  callOn<T>(client, name, args);

beforeEach(async () => {
  ws = makeWorkspace();
  ({ client } = await startServer(ws));
});

afterEach(async () => {
  await client.close();
  rmSync(ws, { recursive: true, force: true });
});

describe('loop mcp over stdio (the SDK client against the real server)', () => {
  it(
    "lists the tools; keeps the agent's edit that improves (a commit on the " +
      'run branch, row keep) and reverts one that does not (tree restored byte ' +
      'for byte, row discard); the rows read back',
    async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([...LOOP_MCP_TOOLS]);
      expect(tools.find((t) => t.name === 'loop_evaluate')!.inputSchema.required).toEqual(['description']);
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri).sort()).toEqual(Object.values(LOOP_MCP_RESOURCES).sort());
      // Nothing to evaluate yet: refused, no row, no run branch.
      await expect(call('loop_evaluate', { description: 'nothing' })).rejects.toThrow('[NO_EDIT]');
      expect(await call('loop_rows')).toEqual([]);

      writeFileSync(join(ws, 'config.json'), '{"x": 2}\n');
      const kept = await call<{
        decision: string;
        score: number;
        best: number;
        commit: string;
        baseline: { score: number };
      }>('loop_evaluate', { description: 'x 5 -> 2' });
      expect(kept).toMatchObject({ decision: 'keep', score: 2, best: 2, baseline: { score: 5 } });
      expect(git('rev-parse', 'HEAD')).toBe(kept.commit);
      expect(git('show', '-s', '--format=%s', kept.commit)).toContain('x 5 -> 2');
      expect(git('status', '--porcelain')).toBe('');
      const keptBytes = readFileSync(join(ws, 'config.json'));

      writeFileSync(join(ws, 'config.json'), '{"x": 7, "note": "worse"}\n');
      const discarded = await call<{ decision: string; score: number; best: number; commit: string }>('loop_evaluate', {
        description: 'x 2 -> 7',
      });
      expect(discarded).toMatchObject({ decision: 'discard', score: 7, best: 2 });
      expect(readFileSync(join(ws, 'config.json')).equals(keptBytes)).toBe(true);
      expect(git('status', '--porcelain')).toBe('');
      expect(git('rev-parse', 'HEAD')).toBe(kept.commit);

      // An edit that breaks the harness is a crash row, reverted the same way (no repair calls).
      writeFileSync(join(ws, 'config.json'), '{"x": ');
      expect(await call('loop_evaluate', { description: 'broken json' })).toMatchObject({
        decision: 'crash',
        score: null,
        best: 2,
      });
      expect(readFileSync(join(ws, 'config.json')).equals(keptBytes)).toBe(true);
      expect(git('status', '--porcelain')).toBe('');

      const rows =
        await call<{ iteration: number; status: string; kind: string; score: number; description: string }[]>(
          'loop_rows',
        );
      expect(rows.map((r) => [r.iteration, r.kind, r.status, r.score, r.description])).toEqual([
        [0, 'baseline', 'keep', 5, 'baseline'],
        [1, 'keep', 'keep', 2, 'x 5 -> 2'],
        [2, 'discard', 'discard', 7, 'x 2 -> 7'],
        [3, 'crash', 'crash', null, 'broken json (crash: exited with code 1)'],
      ]);
      expect((await call<unknown[]>('loop_rows', { status: ['discard'] })).length).toBe(1);

      // The discarded change is still readable from git (loop diff).
      const diff = await call<{ patch: string; ref: string }>('loop_diff', { iteration: 2 });
      expect(diff.patch).toContain('+{"x": 7, "note": "worse"}');

      const results = await client.readResource({ uri: LOOP_MCP_RESOURCES.results });
      expect(String((results.contents[0] as { text: string }).text).split('\n')[0]).toBe(
        'commit\tscore\tstatus\tdescription',
      );
    },
  );

  it(
    "an agent's edit that breaks a constraint is discarded, and loop_rows " +
      "carries each row's metrics and the broken constraint (issue 28)",
    async () => {
      await client.close();
      rmSync(ws, { recursive: true, force: true });
      ws = makeWorkspace("metrics:\n  x_value: '^score:\\s*(\\S+)'\nconstraints: ['x_value >= 1']\n");
      ({ client } = await startServer(ws));
      writeFileSync(join(ws, 'config.json'), '{"x": 0}\n');
      const blocked = await call<{ decision: string; note?: string }>('loop_evaluate', { description: 'x 5 -> 0' });
      expect(blocked).toMatchObject({ decision: 'discard', score: 0 });
      // The agent is told why: the reply names the broken constraint.
      expect(blocked.note).toMatch(/constraint x_value >= 1 broken/);
      writeFileSync(join(ws, 'config.json'), '{"x": 3}\n');
      expect(await call('loop_evaluate', { description: 'x 5 -> 3' })).toMatchObject({ decision: 'keep', score: 3 });
      const rows = await call<
        {
          iteration: number;
          description: string;
          metrics?: Record<string, number>;
          violations?: { constraint: string }[];
        }[]
      >('loop_rows');
      expect(rows.map((r) => [r.iteration, r.metrics, r.violations?.map((v) => v.constraint)])).toEqual([
        [0, { x_value: 5 }, undefined],
        [1, { x_value: 0 }, ['x_value >= 1']],
        [2, { x_value: 3 }, undefined],
      ]);
      expect(rows[1]?.description).toBe('x 5 -> 0 (blocked by constraint x_value >= 1 broken: 0 < 1 (by 1, 100%))');
    },
  );

  it(
    'reads and writes the config (loop_setup), runs one iteration with the ' +
      'configured proposer (the mutator), then serves status and the plot',
    async () => {
      expect(await call('loop_setup')).toEqual({ file: join(ws, 'loop.config.yaml'), text: CONFIG });
      await expect(call('loop_setup', { write: true, file: 'bad.yaml', text: 'maxIterations: -1\n' })).rejects.toThrow(
        /CONFIG_INVALID[\s\S]*maxIterations/,
      );
      await expect(call('loop_setup', { write: true })).rejects.toThrow('already exists');
      const starter = await call<{ file: string; text: string }>('loop_setup', { write: true, file: 'other.yaml' });
      expect(starter.file).toBe(join(ws, 'other.yaml'));
      expect(starter.text).toContain('targetFiles:');
      rmSync(starter.file);
      const step = await call<{ evaluated: boolean; iteration: number; decision: string }>('loop_run_iteration');
      expect(step).toMatchObject({ evaluated: true, iteration: 1 });
      expect(['keep', 'discard']).toContain(step.decision);
      expect(git('status', '--porcelain')).toBe('');
      const status = await call<{ rows: unknown[]; locked: boolean }>('loop_status');
      expect(status.rows).toHaveLength(2);
      expect(status.locked).toBe(true); // the server's loop holds the workspace while it is up
      const plot = await client.readResource({ uri: LOOP_MCP_RESOURCES.plot });
      expect(String((plot.contents[0] as { text: string }).text)).toMatch(/^<svg/);
    },
  );
});

describe('loop mcp: an edit the loop does not evaluate stays in the tree', () => {
  it(
    'puts the edit back when the stop policy fires before the iteration ' +
      '(targetScore reached) and reports not-evaluated',
    async () => {
      writeFileSync(join(ws, 'loop.config.yaml'), `${CONFIG}targetScore: 2\n`);
      git('commit', '-q', '-am', 'target score');
      writeFileSync(join(ws, 'config.json'), '{"x": 2}\n');
      expect(await call('loop_evaluate', { description: 'x 5 -> 2' })).toMatchObject({ decision: 'keep', best: 2 });
      writeFileSync(join(ws, 'config.json'), '{"x": 1}\n');
      const step = await call<{ evaluated: boolean; decision: string }>('loop_evaluate', { description: 'x 2 -> 1' });
      expect(step).toMatchObject({ evaluated: false, decision: 'not-evaluated' });
      expect(readFileSync(join(ws, 'config.json'), 'utf8')).toBe('{"x": 1}\n');
      expect((await call<unknown[]>('loop_rows')).length).toBe(2);
    },
  );
});

describe('loop mcp: loop_stop', () => {
  it(
    'aborts the evaluation in flight: its run is ended, the tree is back at ' +
      'the last kept state, and no keep is recorded',
    async () => {
      const mark = `${ws}-started`;
      writeFileSync(join(ws, 'loop.config.yaml'), `${CONFIG}env: { MARK: ${JSON.stringify(mark)} }\n`);
      git('commit', '-q', '-am', 'marker env');
      writeFileSync(join(ws, 'config.json'), '{"x": 1, "slow": true}\n');
      const pending = call('loop_evaluate', { description: 'never finishes' }).then(
        (r) => ({ r }),
        (e: Error) => ({ e }),
      );
      await fileAppears(mark);
      expect(await call('loop_stop')).toEqual({ stopped: true });
      const out = await pending;
      expect(out).toMatchObject({
        r: { evaluated: false, decision: 'not-evaluated', best: 5, stop: { reason: 'aborted' } },
      });
      // the baseline only
      expect((await call<{ status: string }[]>('loop_rows')).map((r) => r.status)).toEqual(['keep']);
      expect(readFileSync(join(ws, 'config.json'), 'utf8')).toBe('{"x": 5}\n');
      expect(git('status', '--porcelain')).toBe('');
      expect(await call('loop_stop')).toEqual({ stopped: false });
      rmSync(mark, { force: true });
    },
  );
});
