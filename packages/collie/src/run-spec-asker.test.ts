import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { isLoopError } from '@loop/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnswersFileAsker, createReadlineAsker } from './index.js';
import { stage0Questions } from './run-spec.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const qs = stage0Questions('1. npm test');

describe('seed 000 Stage 0 question askers', () => {
  it(
    'Step 0.3 interactive: the readline asker prints all five questions in ' +
      'one batch and reads one line each; an empty line takes the default',
    async () => {
      const input = new PassThrough();
      const output = new PassThrough();
      let printed = '';
      output.on('data', (c: Buffer) => (printed += c.toString()));
      const pending = createReadlineAsker({ input, output }).ask(qs);
      input.end('npm test\nscalar_threshold 3\n\n\nyes\n');
      expect(await pending).toEqual({
        Q1: 'npm test',
        Q2: 'scalar_threshold 3',
        Q3: 'correctness',
        Q4: 'kind_aware',
        Q5: 'yes',
      });
      expect(printed.indexOf('Q5:')).toBeLessThan(printed.indexOf('Answer each'));
    },
  );

  it('Step 0.3 queued: the file asker answers from YAML, filling absent answers with defaults', async () => {
    const d = mkdtempSync(join(tmpdir(), 'collie-ask-'));
    dirs.push(d);
    writeFileSync(join(d, 'a.yaml'), 'Q1: sh test.sh\nQ3: both\nQ5: true\n');
    expect(await createAnswersFileAsker(join(d, 'a.yaml')).ask(qs)).toEqual({
      Q1: 'sh test.sh',
      Q2: 'all_green',
      Q3: 'both',
      Q4: 'kind_aware',
      Q5: 'true',
    });
  });

  it('Step 0.3 queued: a missing answer without default (Q1) or a missing file is CONFIG_INVALID', async () => {
    const d = mkdtempSync(join(tmpdir(), 'collie-ask-'));
    dirs.push(d);
    writeFileSync(join(d, 'a.yaml'), 'Q3: both\n');
    await expect(createAnswersFileAsker(join(d, 'a.yaml')).ask(qs)).rejects.toSatisfy(
      (e) => isLoopError(e, 'CONFIG_INVALID') && String(e).includes('Q1'),
    );
    await expect(createAnswersFileAsker(join(d, 'none.yaml')).ask(qs)).rejects.toSatisfy((e) =>
      isLoopError(e, 'CONFIG_INVALID'),
    );
  });

  it(
    '§3.5 Branch B step 5 interactive: choose asks one question, accepts an ' +
      'exact answer or a prefix, re-asks on anything else; the file asker has ' +
      'no choose (queued)',
    async () => {
      const input = new PassThrough();
      const output = new PassThrough();
      let printed = '';
      output.on('data', (c: Buffer) => (printed += c.toString()));
      const pending = createReadlineAsker({ input, output }).choose!(
        'Prepare failed: x. Fix material and retry, or abort?',
        ['retry', 'abort'],
      );
      input.write('maybe\n');
      input.write('re\n');
      expect(await pending).toBe('retry');
      expect(printed).toContain('Prepare failed: x. Fix material and retry, or abort? [retry/abort]');
      expect(printed).toContain('Answer one of: retry, abort');
      expect(createAnswersFileAsker('/nonexistent.yaml').choose).toBeUndefined();
    },
  );

  it(
    '§3.5 Branch B step 5 interactive: a closed input without an answer ' + 'picks the last (safe) choice, abort',
    async () => {
      const input = new PassThrough();
      const pending = createReadlineAsker({ input, output: new PassThrough() }).choose!('retry or abort?', [
        'retry',
        'abort',
      ]);
      input.end();
      expect(await pending).toBe('abort');
    },
  );
});
