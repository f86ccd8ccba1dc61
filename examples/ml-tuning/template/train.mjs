// train.mjs: train a makemore-style character-level MLP on English first
// names within a step budget (LOOP_STEP_BUDGET) or a wall-clock budget
// (LOOP_TIME_BUDGET_S), then report validation bits per character.
//
// Environment:
//   LOOP_STEP_BUDGET  train exactly this many steps (the learning-rate decay
//                     follows steps): the same config and seed give the same
//                     score however loaded the machine is. Without it, train
//                     until LOOP_TIME_BUDGET_S seconds have passed.
//   LOOP_SEED         mixed into config.json's seed (the harness varies it
//                     across repeats of one config).
//   LOOP_TF_BACKEND   wasm (default when @tensorflow/tfjs-backend-wasm is
//                     installed: 2-4x the steps of cpu) or cpu.
//   LOOP_REPORT_EVERY every this many steps, print an intermediate score on a
//                     fixed slice of the validation set (the first 400 names):
//                     "report step <n> val_bpc <x>" (the loop's pruners read it;
//                     the final val_bpc is always the whole validation set).
//
// Hyperparameters come from config.json next to this file. The final four
// lines on stdout are the machine-readable result:
//
//   val_bpc: 3.123456
//   train_steps: 12345
//   training_seconds: 30.00
//   params: 4567
//
// Exit code 1 (with a message on stderr) on an invalid config or a
// non-finite loss.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { createRequire } from 'node:module';
import {
  TIME_BUDGET_S,
  VOCAB_SIZE,
  buildExamples,
  evaluateBitsPerChar,
  loadSplits,
  mulberry32,
} from './prepare.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CONFIG_PATH = join(HERE, 'config.json');

function positiveInt(name) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got ${JSON.stringify(raw)}`);
  return n;
}
const STEP_BUDGET = positiveInt('LOOP_STEP_BUDGET');
const LOOP_SEED = process.env.LOOP_SEED === undefined || process.env.LOOP_SEED === '' ? undefined : Number(process.env.LOOP_SEED);
const LOG_EVERY_STEPS = 1000;
const REPORT_EVERY = positiveInt('LOOP_REPORT_EVERY');
const REPORT_NAMES = 400;

class ConfigError extends Error {}
class TrainingError extends Error {}

// ---------------------------------------------------------------- config --

const int = (min, max) => (v) =>
  Number.isInteger(v) && v >= min && v <= max ? null : `must be an integer in [${min}, ${max}]`;
const num = (min, max, { minExclusive = false } = {}) => (v) =>
  typeof v === 'number' && Number.isFinite(v) && (minExclusive ? v > min : v >= min) && v <= max
    ? null
    : `must be a number in ${minExclusive ? '(' : '['}${min}, ${max}]`;
const oneOf = (values) => (v) =>
  values.includes(v) ? null : `must be one of ${values.map((x) => JSON.stringify(x)).join(', ')}`;

const ACTIVATIONS = {
  tanh: { fn: (x) => tf.tanh(x), gain: 5 / 3 },
  relu: { fn: (x) => tf.relu(x), gain: Math.SQRT2 },
  elu: { fn: (x) => tf.elu(x), gain: Math.SQRT2 },
};

const SCHEMA = {
  context_length: int(1, 16),
  n_embd: int(1, 256),
  n_hidden: int(1, 2048),
  n_layers: int(1, 4),
  activation: oneOf(Object.keys(ACTIVATIONS)),
  optimizer: oneOf(['adam', 'rmsprop', 'momentum', 'sgd']),
  learning_rate: num(0, 10, { minExclusive: true }),
  batch_size: int(1, 8192),
  // Final learning rate = learning_rate * lr_decay, exponential in elapsed time.
  lr_decay: num(0, 1, { minExclusive: true }),
  // Decoupled (AdamW-style) decay of weight matrices: w -= lr * weight_decay * w.
  weight_decay: num(0, 1),
  seed: int(0, 2 ** 32 - 1),
};

function loadConfig(path) {
  let raw;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read ${path}: ${err.message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError('config.json must be a JSON object');
  }
  for (const key of Object.keys(raw)) {
    if (!(key in SCHEMA)) throw new ConfigError(`unknown field "${key}"`);
  }
  for (const [key, check] of Object.entries(SCHEMA)) {
    if (!(key in raw)) throw new ConfigError(`missing field "${key}"`);
    const problem = check(raw[key]);
    if (problem) throw new ConfigError(`field "${key}" ${problem}, got ${JSON.stringify(raw[key])}`);
  }
  return raw;
}

// ----------------------------------------------------------------- model --

function gaussian(rand) {
  // Box-Muller; 1 - u keeps log() away from 0.
  const u = 1 - rand();
  const v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function randn(rand, shape, std) {
  const size = shape.reduce((a, b) => a * b, 1);
  const values = new Float32Array(size);
  for (let i = 0; i < size; i++) values[i] = gaussian(rand) * std;
  return tf.variable(tf.tensor(values, shape, 'float32'));
}

// Performance notes for the pure-JS CPU backend (measured, tfjs 4.22):
// - The gradient of tf.gather is ~15x slower than the whole rest of a step, so
//   the embedding lookup is a one-hot matMul (vocab is only 27 wide).
// - Broadcasting adds ([B, n] + [n]) take a slow per-element path, so biases
//   are [1, n] and broadcast with a ones[B, 1] matMul instead.
// - tf.losses.softmaxCrossEntropy is ~2.5x slower than the fused
//   cross-entropy below (same value, gradient softmax - labels).
function addBias(x, bias) {
  return tf.add(x, tf.matMul(tf.ones([x.shape[0], 1]), bias));
}

/** Mean cross-entropy in nats of one-hot float32 labels [B, V] under logits [B, V]. */
const crossEntropy = tf.customGrad((logits, labels, save) => {
  const [batch, vocab] = logits.shape;
  const logSumExp = tf.logSumExp(logits, 1, true); // [B, 1]
  const logProbs = tf.sub(logits, tf.matMul(logSumExp, tf.ones([1, vocab])));
  save([logProbs, labels]);
  return {
    value: tf.neg(tf.div(tf.sum(tf.mul(logProbs, labels)), batch)),
    gradFunc: (dy, [savedLogProbs, savedLabels]) => [
      tf.mul(tf.sub(tf.exp(savedLogProbs), savedLabels), tf.div(dy, batch)),
      tf.zerosLike(savedLabels),
    ],
  };
});

function buildModel(cfg, rand) {
  const act = ACTIVATIONS[cfg.activation];
  const embedding = randn(rand, [VOCAB_SIZE, cfg.n_embd], 1);
  const layers = [];
  let fanIn = cfg.context_length * cfg.n_embd;
  for (let i = 0; i < cfg.n_layers; i++) {
    layers.push({
      w: randn(rand, [fanIn, cfg.n_hidden], act.gain / Math.sqrt(fanIn)),
      b: tf.variable(tf.zeros([1, cfg.n_hidden])),
    });
    fanIn = cfg.n_hidden;
  }
  // Small output layer so the initial prediction is close to uniform.
  const out = {
    w: randn(rand, [fanIn, VOCAB_SIZE], 0.1 / Math.sqrt(fanIn)),
    b: tf.variable(tf.zeros([1, VOCAB_SIZE])),
  };
  const params = [embedding, ...layers.flatMap((l) => [l.w, l.b]), out.w, out.b];
  const decayed = [embedding, ...layers.map((l) => l.w), out.w];
  const inputWidth = cfg.context_length * cfg.n_embd;

  /** int32 contexts [B, context_length] -> logits [B, VOCAB_SIZE] */
  function forward(contexts) {
    const batch = contexts.shape[0];
    // oneHot's dtype argument is ignored by the wasm backend (it returns zeros): cast instead.
    const oneHot = tf.cast(tf.oneHot(tf.reshape(contexts, [-1]), VOCAB_SIZE), 'float32');
    let h = tf.reshape(tf.matMul(oneHot, embedding), [batch, inputWidth]);
    for (const layer of layers) h = act.fn(addBias(tf.matMul(h, layer.w), layer.b));
    return addBias(tf.matMul(h, out.w), out.b);
  }

  const paramCount = params.reduce((n, p) => n + p.size, 0);
  return { forward, params, decayed, paramCount };
}

function makeOptimizer(cfg) {
  switch (cfg.optimizer) {
    case 'adam':
      return tf.train.adam(cfg.learning_rate);
    case 'rmsprop':
      return tf.train.rmsprop(cfg.learning_rate);
    case 'momentum':
      return tf.train.momentum(cfg.learning_rate, 0.9);
    case 'sgd':
      return tf.train.sgd(cfg.learning_rate);
    default:
      throw new ConfigError(`field "optimizer" unsupported: ${cfg.optimizer}`);
  }
}

function setLearningRate(optimizer, lr) {
  // SGD/momentum cache -lr as a tensor; adam/rmsprop read .learningRate per step.
  if (typeof optimizer.setLearningRate === 'function') optimizer.setLearningRate(lr);
  else optimizer.learningRate = lr;
}

// ------------------------------------------------------------------ main --

/** wasm when its package is installed (and LOOP_TF_BACKEND is not cpu), else the pure-JS cpu backend. */
async function selectBackend() {
  const wanted = process.env.LOOP_TF_BACKEND ?? 'wasm';
  if (wanted !== 'wasm' && wanted !== 'cpu') throw new ConfigError(`LOOP_TF_BACKEND must be wasm or cpu, got ${JSON.stringify(wanted)}`);
  if (wanted === 'wasm') {
    try {
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      const dist = dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
      wasm.setWasmPaths(`${dist}/`);
      if (await tf.setBackend('wasm')) {
        await tf.ready();
        return 'wasm';
      }
    } catch {
      // not installed or not loadable: fall back to cpu
    }
  }
  await tf.setBackend('cpu');
  await tf.ready();
  return 'cpu';
}

async function main() {
  const cfg = loadConfig(CONFIG_PATH);

  const backendName = await selectBackend();
  // The CPU backend prints a "use tfjs-node" banner on its first tensor
  // write; this example deliberately uses the pure-JS backends, so mute it.
  const backend = tf.backend();
  if ('firstUse' in backend) backend.firstUse = false;

  const { train, val } = loadSplits();
  const data = buildExamples(train, cfg.context_length);
  // LOOP_SEED (when set) varies the run's randomness without editing config.json.
  const rand = mulberry32(LOOP_SEED === undefined || !Number.isFinite(LOOP_SEED) ? cfg.seed : (Math.imul(cfg.seed ^ 0x9e3779b9, 0x85ebca6b) ^ LOOP_SEED) >>> 0);
  const model = buildModel(cfg, rand);
  const optimizer = makeOptimizer(cfg);
  const ctxLen = cfg.context_length;
  const batchSize = cfg.batch_size;

  console.log(
    `config: ${JSON.stringify(cfg)}\n` +
      `data: ${train.length} train names (${data.count} examples), ${val.length} val names\n` +
      `budget: ${STEP_BUDGET === undefined ? `${TIME_BUDGET_S}s` : `${STEP_BUDGET} steps`}, backend: ${backendName}, seed: ${cfg.seed}${LOOP_SEED === undefined ? '' : ` ^ LOOP_SEED ${LOOP_SEED}`}, params: ${model.paramCount}`,
  );

  const batchContexts = new Int32Array(batchSize * ctxLen);
  const batchTargets = new Int32Array(batchSize);
  const budgetMs = TIME_BUDGET_S * 1000;
  const started = performance.now();
  let step = 0;
  let elapsedMs = 0;
  let lossEma = null;

  const done = () => (STEP_BUDGET === undefined ? elapsedMs >= budgetMs : step >= STEP_BUDGET);
  const progress = () => (STEP_BUDGET === undefined ? elapsedMs / budgetMs : step / STEP_BUDGET);
  while (!done()) {
    const lr = cfg.learning_rate * Math.pow(cfg.lr_decay, progress());
    if (cfg.lr_decay !== 1) setLearningRate(optimizer, lr);

    for (let i = 0; i < batchSize; i++) {
      const row = Math.floor(rand() * data.count);
      batchContexts.set(data.contexts.subarray(row * ctxLen, (row + 1) * ctxLen), i * ctxLen);
      batchTargets[i] = data.targets[row];
    }

    const loss = tf.tidy(() => {
      const contexts = tf.tensor2d(batchContexts, [batchSize, ctxLen], 'int32');
      const labels = tf.cast(tf.oneHot(tf.tensor1d(batchTargets, 'int32'), VOCAB_SIZE), 'float32');
      const cost = optimizer.minimize(
        () => crossEntropy(model.forward(contexts), labels),
        true,
        model.params,
      );
      if (cfg.weight_decay > 0) {
        const keep = 1 - lr * cfg.weight_decay;
        for (const w of model.decayed) w.assign(tf.mul(w, keep));
      }
      return cost.dataSync()[0];
    });
    step++;

    if (!Number.isFinite(loss)) {
      throw new TrainingError(`non-finite loss (${loss}) at step ${step}: training diverged`);
    }
    lossEma = lossEma === null ? loss : 0.98 * lossEma + 0.02 * loss;
    elapsedMs = performance.now() - started;
    if (REPORT_EVERY !== undefined && step % REPORT_EVERY === 0 && !done()) {
      const sliceBpc = await evaluateBitsPerChar(
        (contexts, count, contextLength) =>
          tf.tidy(() => model.forward(tf.tensor2d(contexts, [count, contextLength], 'int32')).dataSync()),
        val.slice(0, REPORT_NAMES),
        ctxLen,
      );
      console.log(`report step ${step} val_bpc ${Number.isFinite(sliceBpc) ? sliceBpc.toFixed(6) : String(sliceBpc).toLowerCase()}`);
    }
    if (step === 1 || step % LOG_EVERY_STEPS === 0) {
      console.log(
        `step ${String(step).padStart(6)} | loss ${loss.toFixed(4)} | ema ${lossEma.toFixed(4)} nats` +
          ` | lr ${lr.toExponential(2)} | ${(elapsedMs / 1000).toFixed(1)}s`,
      );
    }
  }
  const trainingSeconds = elapsedMs / 1000;

  const evalStarted = performance.now();
  const valBpc = await evaluateBitsPerChar(
    (contexts, count, contextLength) =>
      tf.tidy(() => model.forward(tf.tensor2d(contexts, [count, contextLength], 'int32')).dataSync()),
    val,
    ctxLen,
  );
  const evalSeconds = (performance.now() - evalStarted) / 1000;
  if (!Number.isFinite(valBpc)) {
    throw new TrainingError(`non-finite val_bpc (${valBpc}): model produced non-finite logits`);
  }
  console.log(`eval_seconds: ${evalSeconds.toFixed(2)}, tensors alive: ${tf.memory().numTensors}`);

  console.log('---');
  console.log(`val_bpc: ${valBpc.toFixed(6)}`);
  console.log(`train_steps: ${step}`);
  console.log(`training_seconds: ${trainingSeconds.toFixed(2)}`);
  console.log(`params: ${model.paramCount}`);
  // The sealed holdout (docs/holdout.md): the test names' file, outside the workspace, given only to the holdout's run.
  if (process.env.LOOP_EVAL_NAMES) {
    const names = readFileSync(process.env.LOOP_EVAL_NAMES, 'utf8').split('\n').filter((n) => /^[a-z]+$/.test(n));
    const testBpc = await evaluateBitsPerChar(
      (contexts, count, contextLength) =>
        tf.tidy(() => model.forward(tf.tensor2d(contexts, [count, contextLength], 'int32')).dataSync()),
      names,
      ctxLen,
    );
    console.log(`test_bpc: ${testBpc.toFixed(6)}`);
  }
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(`error: invalid config.json: ${err.message}`);
  else if (err instanceof TrainingError) console.error(`error: ${err.message}`);
  else console.error(`error: ${err?.stack ?? err}`);
  process.exit(1);
});
