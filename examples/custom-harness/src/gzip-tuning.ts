import { readFileSync } from 'node:fs';
import { constants, gzipSync, type ZlibOptions } from 'node:zlib';
import {
  createLoop,
  createMemoryArtifact,
  createMemoryRollback,
  createValueScorer,
  createFunctionProposer,
  maxIterations,
  type Harness,
  type LoopSummary,
} from '@loop/core';
import { createSeededRandom } from '@loop/core/stats';

/** The tunable gzip parameters (the loop's mutable artifact). */
export type GzipParams = Required<Pick<ZlibOptions, 'level' | 'memLevel' | 'strategy' | 'windowBits'>>;

/** Tunes gzip parameters to minimise the compressed size (bytes) of `corpus`. */
export async function tuneGzip(corpus: Buffer, iterations: number, seed = 1): Promise<LoopSummary> {
  const artifact = createMemoryArtifact<GzipParams>({
    level: 1,
    memLevel: 1,
    strategy: constants.Z_DEFAULT_STRATEGY,
    windowBits: 9,
  });

  // The custom harness: ten lines, a real measurement, a number out.
  const harness: Harness = {
    name: 'gzip-size',
    run: () => {
      const started = performance.now();
      const bytes = gzipSync(corpus, artifact.get()).length;
      return { exitCode: 0, signal: null, timedOut: false, durationMs: performance.now() - started, value: bytes };
    },
  };

  const random = createSeededRandom(seed);
  const pick = (lo: number, hi: number) => lo + Math.floor(random.next() * (hi - lo + 1));
  const proposer = createFunctionProposer('gzip-params', () => {
    const p = { ...artifact.get() };
    const key = (['level', 'memLevel', 'strategy', 'windowBits'] as const)[pick(0, 3)]!;
    p[key] =
      key === 'level' ? pick(1, 9) : key === 'memLevel' ? pick(1, 9) : key === 'windowBits' ? pick(9, 15) : pick(0, 4);
    artifact.set(p);
    return { description: `${key} -> ${p[key]}` };
  });

  return createLoop({
    artifact,
    proposer,
    harness,
    rollback: createMemoryRollback(artifact),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(iterations),
  }).run();
}

/** A real corpus: this example's own source and the TypeScript compiler's ES5 declarations. */
export function loadCorpus(): Buffer {
  const here = new URL('.', import.meta.url);
  return Buffer.concat([
    readFileSync(new URL('gzip-tuning.ts', here)),
    readFileSync(new URL('../../../node_modules/typescript/lib/lib.es5.d.ts', here)),
  ]);
}
