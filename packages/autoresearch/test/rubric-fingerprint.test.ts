import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { computeRubricFingerprint } from '../src/rubric-fingerprint.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('rubric fingerprint (seed 002 setup step 7)', () => {
  it('is SHA-256 over the exact bytes of the harness files concatenated in a fixed order', async () => {
    dir = mkdtempSync(join(tmpdir(), 'loop-rubric-'));
    const yaml = join(dir, 'criteria.yaml');
    const agent = join(dir, 'reflection-agent.md');
    writeFileSync(yaml, 'a: 1\n');
    writeFileSync(agent, 'prompt\n');
    expect(await computeRubricFingerprint([yaml, agent])).toBe(
      createHash('sha256').update('a: 1\nprompt\n').digest('hex'),
    );
    expect(await computeRubricFingerprint([agent, yaml])).not.toBe(await computeRubricFingerprint([yaml, agent]));
  });

  it('changes when one byte of the criteria YAML or the agent prompt changes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'loop-rubric-'));
    const yaml = join(dir, 'criteria.yaml');
    writeFileSync(yaml, 'a: 1\n');
    const before = await computeRubricFingerprint([yaml]);
    writeFileSync(yaml, 'a: 2\n');
    expect(await computeRubricFingerprint([yaml])).not.toBe(before);
  });
});
