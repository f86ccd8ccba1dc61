// `.ts` config files: loaded through jiti (types stripped, imports followed), validated with the
// same zod schema as YAML and JSON, errors naming the file and the field; found by default as
// loop.config.ts; usable by the CLI (`loop status <config.ts>` resolves its workspace).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { ConfigFileError, defineConfig, findConfigFile, loadConfig } from '../src/load-config.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-ts-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const TS_CONFIG = `import type { LoopConfigInput } from '@loop/cli';
import { budget } from './budget';

interface Space { [name: string]: { min: number; max: number; scale?: 'linear' | 'log' } }
const space: Space = { lr: { min: 1e-4, max: 1e-1, scale: 'log' } };

export default {
  dir: './ws',
  targetFiles: ['config.json'],
  runCommand: 'node train.mjs',
  metricName: 'val_loss',
  timeBudgetS: budget(2),
  maxIterations: 5,
  proposer: { type: 'mutator', file: 'config.json', space },
} satisfies LoopConfigInput;
`;

describe('.ts config files', () => {
  it(
    'loads a TypeScript config (type-only imports, interfaces, satisfies, a ' +
      'relative import) with defaults applied',
    async () => {
      writeFileSync(join(dir, 'budget.ts'), 'export const budget = (minutes: number): number => minutes * 60;\n');
      writeFileSync(join(dir, 'loop.config.ts'), TS_CONFIG);
      const loaded = await loadConfig(join(dir, 'loop.config.ts'));
      expect(loaded.dir).toBe(join(dir, 'ws'));
      expect(loaded.config).toMatchObject({
        timeBudgetS: 120,
        maxIterations: 5,
        direction: 'lower',
        metricName: 'val_loss',
        proposer: { type: 'mutator', seed: 1 },
      });
    },
  );

  it('accepts a default-exported function (async) and defineConfig', async () => {
    writeFileSync(
      join(dir, 'fn.config.mts'),
      `export default async () => ({ targetFiles: ['a'], runCommand: 'true', ` +
        `metricName: 'm', direction: 'higher' as const, proposer: { type: ` +
        `'agent', command: 'claude -p', goal: 'raise m' } });\n`,
    );
    expect((await loadConfig(join(dir, 'fn.config.mts'))).config).toMatchObject({
      direction: 'higher',
      proposer: { type: 'agent', timeoutS: 600 },
    });
    const input = {
      targetFiles: ['a'],
      runCommand: 'true',
      metricName: 'm',
      proposer: { type: 'agent' as const, command: 'x', goal: 'y' },
    };
    expect(defineConfig(input)).toBe(input);
  });

  it('an invalid TypeScript config names the file and the field, with the allowed values', async () => {
    const file = join(dir, 'loop.config.ts');
    writeFileSync(
      file,
      `export default { targetFiles: ['a'], runCommand: 'true', metricName: ` +
        `'m', direction: 'down', colour: 1, proposer: { type: 'mutator', file: ` +
        `'a', space: {} } };\n`,
    );
    const error = await loadConfig(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigFileError);
    const e = error as ConfigFileError;
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain(`${file}: direction: "down" is not allowed; allowed values: "lower", "higher"`);
    expect(e.message).toMatch(/unknown field "colour"/);
  });

  it(
    'a TypeScript syntax error, a throwing module, and no default export ' + 'are CONFIG_INVALID naming the file',
    async () => {
      const broken = join(dir, 'broken.config.ts');
      writeFileSync(broken, 'export default { targetFiles: [ ;\n');
      await expect(loadConfig(broken)).rejects.toThrow(
        /invalid config .*broken\.config\.ts:\n.*cannot load the config module/,
      );
      const throwing = join(dir, 'throwing.config.ts');
      writeFileSync(throwing, "throw new Error('no secrets here');\n");
      await expect(loadConfig(throwing)).rejects.toThrow(/cannot load the config module: .*no secrets here/);
      const none = join(dir, 'none.config.ts');
      writeFileSync(none, 'export const x = 1;\n');
      await expect(loadConfig(none)).rejects.toThrow(/default export must be the config object/);
      await expect(loadConfig(join(dir, 'missing.config.ts'))).rejects.toThrow(/cannot read the config file: ENOENT/);
    },
  );

  it('re-reads an edited config module (no module cache)', async () => {
    const file = join(dir, 'loop.config.ts');
    const write = (n: number) =>
      writeFileSync(
        file,
        `export default { targetFiles: ['a'], runCommand: 'true', metricName: ` +
          `'m', maxIterations: ${n}, proposer: { type: 'agent', command: 'x', goal: ` +
          `'y' } };\n`,
      );
    write(3);
    expect((await loadConfig(file)).config.maxIterations).toBe(3);
    write(7);
    expect((await loadConfig(file)).config.maxIterations).toBe(7);
  });

  it('loop.config.ts is found by default, and the CLI reads it (loop status <config.ts>)', async () => {
    mkdirSync(join(dir, 'ws'));
    writeFileSync(join(dir, 'budget.ts'), 'export const budget = (minutes: number): number => minutes * 60;\n');
    writeFileSync(join(dir, 'loop.config.ts'), TS_CONFIG);
    expect(findConfigFile(undefined, dir)).toBe(join(dir, 'loop.config.ts'));
    let out = '';
    const sink = { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WritableStream;
    const code = await runCli(['status', 'loop.config.ts', '--json'], {
      stdout: sink,
      stderr: sink,
      cwd: dir,
      tty: false,
    });
    expect(out).not.toContain('CONFIG_INVALID');
    expect(out).toContain(join(dir, 'ws'));
    expect([0, 1]).toContain(code);
  });
});
