/** Seeded pseudo-random words for the benchmark's memory files (mulberry32; no Math.random). */
export function createSeededWords(seed: number) {
  const VOCAB = (
    'alpha beta gamma delta deploy staging database port index cache queue ' +
    'worker billing search owner runbook alert metric budget review release ' +
    'branch commit schema backup restore token quota region cluster node ' +
    'shard replica latency'
  ).split(' ');
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const cache = new Map<number, string>();
  return {
    word: () => VOCAB[Math.floor(next() * VOCAB.length)]!,
    /** `n` words, the same for the same `key`. */
    paragraph: (n: number, key: number) => {
      if (!cache.has(key))
        cache.set(key, Array.from({ length: n }, () => VOCAB[Math.floor(next() * VOCAB.length)]!).join(' '));
      return cache.get(key)!;
    },
  };
}
