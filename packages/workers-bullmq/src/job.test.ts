import { describe, expect, it } from 'vitest';
import { candidateDigest, jobIdOf } from './job.js';

const body = {
  baseCommit: 'a'.repeat(40),
  patch: { mutable: ['p'], files: [{ path: 'p', mode: 0o644, data: 'MQ==' }] },
  harness: { command: './train.sh' },
  fingerprint: 'f',
  configDigest: 'c',
};

describe('job identity', () => {
  it(
    'the same evaluation has the same job id (a second add is a no-op); ' +
      'another patch, seed, harness or config is another job',
    () => {
      const digest = candidateDigest(body);
      expect(candidateDigest({ ...body })).toBe(digest);
      for (const other of [
        { ...body, patch: { mutable: ['p'], files: [{ path: 'p', mode: 0o644, data: 'Mg==' }] } },
        { ...body, seed: 1 },
        { ...body, harness: { command: './train.sh --fast' } },
        { ...body, configDigest: 'd' },
        { ...body, baseCommit: 'b'.repeat(40) },
      ])
        expect(candidateDigest(other)).not.toBe(digest);
      const id = jobIdOf({ runId: 'r', iteration: 3, repeat: 0, digest });
      expect(id).toBe(`r.3.0.0.${digest.slice(0, 24)}`);
      expect(jobIdOf({ runId: 'r', iteration: 3, repeat: 0, digest }, 1)).not.toBe(id);
    },
  );
});
