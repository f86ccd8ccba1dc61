import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const EXAMPLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const TEMPLATE_DIR = join(EXAMPLE_DIR, 'template');
const PREPARE_URL = pathToFileURL(join(TEMPLATE_DIR, 'prepare.mjs')).href;
const LOG2_27 = Math.log2(27);

interface Examples {
  contexts: Int32Array;
  targets: Int32Array;
  count: number;
  contextLength: number;
}
type PredictLogits = (
  contexts: Int32Array,
  count: number,
  contextLength: number,
) => ArrayLike<number> | Promise<ArrayLike<number>>;
interface PrepareModule {
  VOCAB: readonly string[];
  VOCAB_SIZE: number;
  TIME_BUDGET_S: number;
  loadSplits(): { train: readonly string[]; val: readonly string[]; test: readonly string[]; vocab: readonly string[] };
  buildExamples(names: readonly string[], contextLength: number): Examples;
  evaluateBitsPerChar(
    predict: PredictLogits,
    valNames: readonly string[],
    contextLength: number,
    options?: { batchSize?: number },
  ): Promise<number>;
}

/** A fresh module instance (own split cache), so two loads really recompute. */
async function loadPrepare(instance: string): Promise<PrepareModule> {
  return (await import(/* @vite-ignore */ `${PREPARE_URL}?instance=${instance}`)) as PrepareModule;
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runTrain(dir: string, budgetSeconds: number, env: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['train.mjs'], {
      cwd: dir,
      env: { ...process.env, LOOP_TIME_BUDGET_S: String(budgetSeconds), ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('prepare.mjs: data split', () => {
  it('is deterministic across fresh module instances', async () => {
    const a = (await loadPrepare('a')).loadSplits();
    const b = (await loadPrepare('b')).loadSplits();
    expect(a.train).toEqual(b.train);
    expect(a.val).toEqual(b.val);
  });

  it(
    'is disjoint, duplicate-free, a-z only and roughly 85/10/5 (train, ' + 'validation, the sealed test split)',
    async () => {
      const { train, val, test } = (await loadPrepare('c')).loadSplits();
      const trainSet = new Set(train);
      const valSet = new Set(val);
      expect(trainSet.size).toBe(train.length);
      expect(valSet.size).toBe(val.length);
      expect(val.filter((n) => trainSet.has(n))).toEqual([]);
      expect(test.filter((n) => trainSet.has(n) || valSet.has(n))).toEqual([]);
      for (const name of [...train, ...val, ...test]) expect(name).toMatch(/^[a-z]+$/);
      const total = train.length + val.length + test.length;
      expect(total).toBeGreaterThan(8000);
      expect(val.length).toBe(Math.round(total * 0.1));
      expect(test.length).toBe(Math.round(total * 0.05));
    },
  );
});

describe('prepare.mjs: buildExamples', () => {
  it('yields one example per character plus the end token, with left-padded contexts', async () => {
    const { buildExamples, VOCAB } = await loadPrepare('d');
    const ex = buildExamples(['emma', 'bo'], 3);
    expect(ex.count).toBe(4 + 1 + 2 + 1);
    const decode = (i: number) => [...ex.contexts.subarray(i * 3, i * 3 + 3)].map((k) => VOCAB[k]).join('');
    const rows = Array.from({ length: ex.count }, (_, i) => `${decode(i)}>${VOCAB[ex.targets[i]!]}`);
    expect(rows).toEqual(['...>e', '..e>m', '.em>m', 'emm>a', 'mma>.', '...>b', '..b>o', '.bo>.']);
  });

  it('counts every character of every training name including end tokens', async () => {
    const { buildExamples, loadSplits } = await loadPrepare('e');
    const { train } = loadSplits();
    const ex = buildExamples(train, 5);
    const expected = train.reduce((n, name) => n + name.length + 1, 0);
    expect(ex.count).toBe(expected);
    expect(ex.targets.length).toBe(expected);
    expect(ex.contexts.length).toBe(expected * 5);
    expect(ex.targets.filter((t) => t === 0).length).toBe(train.length);
  });
});

describe('prepare.mjs: evaluateBitsPerChar', () => {
  it('scores a uniform predictor at log2(27) bits per character', async () => {
    const { evaluateBitsPerChar, loadSplits, VOCAB_SIZE } = await loadPrepare('f');
    const bpc = await evaluateBitsPerChar((_c, n) => new Float32Array(n * VOCAB_SIZE), loadSplits().val, 3);
    expect(Math.abs(bpc - LOG2_27)).toBeLessThan(1e-6);
  });

  it('normalises logits itself, so shifting them or changing the batch size cannot move the score', async () => {
    const { evaluateBitsPerChar, loadSplits, VOCAB_SIZE } = await loadPrepare('g');
    const { val } = loadSplits();
    // A context-dependent predictor: favours the symbol after the last context symbol.
    const predictor =
      (shift: number): PredictLogits =>
      (contexts, n, len) => {
        const logits = new Float64Array(n * VOCAB_SIZE).fill(shift);
        for (let r = 0; r < n; r++)
          logits[r * VOCAB_SIZE + (((contexts[r * len + len - 1] ?? 0) + 1) % VOCAB_SIZE)] = shift + 2;
        return logits;
      };
    const base = await evaluateBitsPerChar(predictor(0), val, 3);
    expect(base).not.toBeCloseTo(LOG2_27, 3);
    expect(await evaluateBitsPerChar(predictor(1000), val, 3)).toBeCloseTo(base, 9);
    expect(await evaluateBitsPerChar(predictor(0), val, 3, { batchSize: 97 })).toBeCloseTo(base, 9);
  });
});

describe('search-space.json', () => {
  it('covers every config key except seed, and contains the default config', async () => {
    const config = JSON.parse(await readFile(join(TEMPLATE_DIR, 'config.json'), 'utf8')) as Record<string, unknown>;
    const space = JSON.parse(await readFile(join(TEMPLATE_DIR, 'search-space.json'), 'utf8')) as Record<
      string,
      { values?: unknown[]; min?: number; max?: number }
    >;
    expect(Object.keys(space).sort()).toEqual(
      Object.keys(config)
        .filter((k) => k !== 'seed')
        .sort(),
    );
    for (const [key, s] of Object.entries(space)) {
      if (s.values) expect(s.values, key).toContain(config[key]);
      else {
        expect(config[key], key).toBeGreaterThanOrEqual(s.min!);
        expect(config[key], key).toBeLessThanOrEqual(s.max!);
      }
    }
  });
});

describe('train.mjs in a workspace copy', () => {
  let dir: string;
  let defaultConfig: Record<string, unknown>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loop-ml-template-'));
    await cp(TEMPLATE_DIR, dir, { recursive: true });
    await symlink(join(EXAMPLE_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir');
    defaultConfig = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const writeConfig = (config: Record<string, unknown>) => writeFile(join(dir, 'config.json'), JSON.stringify(config));

  it('trains within the budget and ends with the four result lines, better than uniform', async () => {
    await writeConfig(defaultConfig);
    const run = await runTrain(dir, 2);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/looks like you are running TensorFlow\.js in Node/);
    const tail = run.stdout.trimEnd().split('\n').slice(-4);
    expect(tail[0]).toMatch(/^val_bpc: \d+\.\d{6}$/);
    expect(tail[1]).toMatch(/^train_steps: [1-9]\d*$/);
    expect(tail[2]).toMatch(/^training_seconds: \d+\.\d+$/);
    expect(tail[3]).toMatch(/^params: [1-9]\d*$/);
    const valBpc = Number(tail[0]!.split(' ')[1]);
    expect(Number.isFinite(valBpc)).toBe(true);
    expect(valBpc).toBeLessThan(LOG2_27);
    expect(Number(tail[2]!.split(' ')[1])).toBeGreaterThanOrEqual(2);
  });

  const valBpcOf = (run: RunResult) => Number(/^val_bpc: (\S+)$/m.exec(run.stdout)?.[1]);

  it(
    'a step budget trains exactly LOOP_STEP_BUDGET steps and the score ' +
      'repeats exactly (the same config and LOOP_SEED), another LOOP_SEED ' +
      'changes it',
    async () => {
      await writeConfig(defaultConfig);
      const steps = { LOOP_STEP_BUDGET: '50' };
      const a = await runTrain(dir, 1, { ...steps, LOOP_SEED: '1' });
      const b = await runTrain(dir, 1, { ...steps, LOOP_SEED: '1' });
      const c = await runTrain(dir, 1, { ...steps, LOOP_SEED: '2' });
      expect(a.code, a.stderr).toBe(0);
      expect(a.stdout).toMatch(/^train_steps: 50$/m);
      expect(valBpcOf(a)).toBe(valBpcOf(b));
      expect(valBpcOf(c)).not.toBe(valBpcOf(a));
    },
  );

  it(
    'LOOP_REPORT_EVERY prints a slice val_bpc every n steps before the end, ' +
      'and reporting does not change the final score (issue 27)',
    async () => {
      await writeConfig(defaultConfig);
      const plain = await runTrain(dir, 1, { LOOP_STEP_BUDGET: '60', LOOP_SEED: '1' });
      const reported = await runTrain(dir, 1, { LOOP_STEP_BUDGET: '60', LOOP_SEED: '1', LOOP_REPORT_EVERY: '20' });
      expect(reported.code, reported.stderr).toBe(0);
      const reports = [...reported.stdout.matchAll(/^report step (\d+) val_bpc (\S+)$/gm)].map((m) => [
        Number(m[1]),
        Number(m[2]),
      ]);
      expect(reports.map(([step]) => step)).toEqual([20, 40]);
      for (const [, v] of reports) expect(v).toBeLessThan(LOG2_27 + 1);
      expect(valBpcOf(reported)).toBe(valBpcOf(plain));
    },
  );

  for (const backend of ['wasm', 'cpu']) {
    it(
      `the ${backend} backend learns (one-hot cast to float32: the wasm oneHot ` +
        `dtype argument gave zeros and a uniform guess)`,
      async () => {
        await writeConfig(defaultConfig);
        const run = await runTrain(dir, 1, { LOOP_STEP_BUDGET: '200', LOOP_TF_BACKEND: backend });
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toContain(`backend: ${backend}`);
        expect(valBpcOf(run)).toBeLessThan(LOG2_27 - 0.5);
      },
    );
  }

  it('exits non-zero naming the field when a config value is invalid', async () => {
    await writeConfig({ ...defaultConfig, n_embd: 0 });
    const run = await runTrain(dir, 2);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('"n_embd"');
    expect(run.stdout).not.toMatch(/^val_bpc:/m);
  });

  it('exits non-zero naming the field when a config key is unknown', async () => {
    await writeConfig({ ...defaultConfig, learnin_rate: 0.01 });
    const run = await runTrain(dir, 2);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('"learnin_rate"');
  });

  it('exits non-zero with a divergence message when the loss becomes non-finite', async () => {
    // Seeded init and minibatches: this config reaches NaN at step 6.
    await writeConfig({ ...defaultConfig, learning_rate: 10, activation: 'relu', optimizer: 'sgd' });
    const run = await runTrain(dir, 5);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/non-finite loss/);
    expect(run.stdout).not.toMatch(/^val_bpc:/m);
  });
});
