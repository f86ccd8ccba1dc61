import type { RandomSource } from '../contracts/types.js';

/**
 * A seeded pseudo-random source (mulberry32): the same seed gives the same sequence on every
 * machine. For proposers and tests; not for cryptography.
 *
 * @param seed - any integer (only the low 32 bits are used)
 */
export function createSeededRandom(seed: number): RandomSource {
  let a = seed >>> 0;
  return {
    next: () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}
