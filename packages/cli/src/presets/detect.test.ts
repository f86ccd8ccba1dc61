import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { collieStarterConfig } from '../collie/init.js';
import { schemaRefFor } from '../schema-ref.js';
import { parseConfigText, parseConfigTextOf } from '../load-config.js';
import { starterConfig } from '../starter-config.js';
import { COLLIE_CONFIG_KIND } from '../collie/load.js';
import { AUTORESEARCH_CONFIG_KIND } from './autoresearch-config.js';
import { AUTOTUNE_CONFIG_KIND } from './autotune-config.js';
import { detectPreset } from './detect.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'loop-detect-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function loop(...args: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const sink = { write: (s: string) => (out.push(s), true) } as unknown as NodeJS.WritableStream;
  const code = await runCli(args, { stdout: sink, stderr: sink, cwd: dir, tty: false, fromClone: false });
  return { code, out: out.join('') };
}

describe('loop init --preset and the preset of a config file', () => {
  it("every preset's starter validates as written, under its own schema", () => {
    expect(parseConfigText(starterConfig('auto-iterate'), 'a.yaml').preset).toBe('auto-iterate');
    expect(parseConfigTextOf(AUTORESEARCH_CONFIG_KIND, starterConfig('autoresearch'), 'b.yaml')).toMatchObject({
      preset: 'autoresearch',
      mode: 'function',
      taskId: 'T-1',
    });
    expect(parseConfigTextOf(AUTOTUNE_CONFIG_KIND, starterConfig('autotune'), 'd.yaml')).toMatchObject({
      preset: 'autotune',
      maxFailedAttempts: 3,
    });
    expect(starterConfig('collie')).toBe(collieStarterConfig());
    expect(parseConfigTextOf(COLLIE_CONFIG_KIND, starterConfig('collie'), 'c.yaml')).toBeTruthy();
  });

  it("a config's preset comes from its preset field, or for collie from its projectId and task (or its name)", () => {
    const write = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
    expect(detectPreset(write('a.yaml', starterConfig('auto-iterate')))).toBe('auto-iterate');
    expect(detectPreset(write('b.yaml', starterConfig('autoresearch')))).toBe('autoresearch');
    expect(detectPreset(write('c.yaml', starterConfig('collie')))).toBe('collie');
    expect(detectPreset(write('collie.config.json', '{}'))).toBe('collie');
    expect(detectPreset(write('d.json', '{"preset": "autoresearch"}'))).toBe('autoresearch');
    expect(detectPreset(write('t.yaml', starterConfig('autotune')))).toBe('autotune');
    expect(detectPreset(write('e.ts', 'export default {}'))).toBe('auto-iterate');
    expect(detectPreset(write('f.yaml', ': not yaml ['))).toBe('auto-iterate');
  });

  it("loop init --preset collie writes the collie starter; loop status on it is collie's status", async () => {
    const init = await loop('init', '--preset', 'collie');
    expect(init.code).toBe(0);
    expect(init.out).toContain('edit projectId, task, agent.command and flow.testCommand, then run\n  loop run\n');
    expect(readFileSync(join(dir, 'loop.config.yaml'), 'utf8')).toBe(
      collieStarterConfig(schemaRefFor(join(dir, 'loop.config.yaml'), 'collie')),
    );
    const status = await loop('status', 'loop.config.yaml', '--json');
    expect(status.code, status.out).toBe(0);
    expect(JSON.parse(status.out)).toMatchObject({
      config: join(dir, 'loop.config.yaml'),
      runId: null,
      stateDir: expect.stringMatching(/autoiter\/my-app$/),
    });
  });
});
