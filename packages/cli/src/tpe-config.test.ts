import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ProposalContext } from '@loop/core';
import { createConfigFileAdapter, createTpeProposer } from '@loop/core/proposers';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigFileError, parseConfigText } from './load-config.js';
import { configCodecFor, createProposer } from './create-proposer.js';

const config = `targetFiles: [params.yaml]
runCommand: node eval.mjs
metricName: score
proposer:
  type: tpe
  file: params.yaml
  space:
    optimizer: { values: [sgd, adam] }
    momentum: { min: 0, max: 0.99, when: { optimizer: [sgd] } }
    lr: { min: 0.0001, max: 0.1, scale: log }
    epochs: { fixed: 3 }
`;

/** The error parsing the test config throws with its lr range replaced by `lr` (undefined when it parses). */
function configError(lr: string): unknown {
  try {
    parseConfigText(config.replace('min: 0.0001, max: 0.1, scale: log', lr), 'loop.config.yaml');
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('proposer type tpe', () => {
  it('a tpe proposer with conditional and fixed parameters validates; its seed defaults to 1', () => {
    const c = parseConfigText(config, 'loop.config.yaml');
    expect(c.proposer).toMatchObject({ type: 'tpe', file: 'params.yaml', seed: 1 });
  });

  it("an invalid tpe space is refused at load time with the proposer's own rules, naming the field", () => {
    const error = configError('min: 0, max: 0.1, scale: log');
    expect(error).toBeInstanceOf(ConfigFileError);
    expect((error as ConfigFileError).issues.map((i) => i.path)).toEqual(['proposer.space.lr.min']);
  });

  it('a wrong type inside a space parameter names the field and the type, not just "Invalid input"', () => {
    const error = configError('min: 0.0001, max: "0.1", scale: log');
    expect(error).toBeInstanceOf(ConfigFileError);
    expect((error as ConfigFileError).message).toContain(
      'loop.config.yaml:10: proposer.space.lr.max: expected number, found "0.1"',
    );
  });

  it(
    'a misspelled field inside a space parameter is named as unknown with ' +
      'the closest field, not as the list branch\'s missing "values"',
    () => {
      const error = configError('min: 0.0001, mxa: 0.1, scale: log');
      expect(error).toBeInstanceOf(ConfigFileError);
      expect((error as ConfigFileError).message).toContain(
        'loop.config.yaml:10: proposer.space.lr: unknown field "mxa" (did you mean "max"?)',
      );
    },
  );

  it('edits a YAML config file in place (the codec loop run uses for .yaml), other keys kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loop-cli-tpe-'));
    try {
      await writeFile(join(dir, 'params.yaml'), 'optimizer: adam\nmomentum: 0.5\nlr: 0.01\nepochs: 1\nname: run-a\n');
      const c = parseConfigText(config, 'loop.config.yaml');
      if (c.proposer.type !== 'tpe') throw new Error('expected tpe');
      const proposer = createTpeProposer({
        config: createConfigFileAdapter({ dir, file: 'params.yaml', codec: configCodecFor('params.yaml') }),
        space: c.proposer.space,
        seed: 1,
      });
      const context = {
        iteration: 1,
        attempt: 0,
        history: [{ iteration: 0, candidateId: '', score: 1, status: 'baseline' }],
        baseline: 1,
        best: 1,
        direction: 'minimize',
        hints: [],
        signal: new AbortController().signal,
      } as unknown as ProposalContext;
      const proposal = await proposer.propose(context);
      const after = parse(await readFile(join(dir, 'params.yaml'), 'utf8'));
      expect(after).toMatchObject({ epochs: 3, name: 'run-a' });
      expect(proposal.description).toContain('epochs 1 -> 3');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a costMetric that is not one of metrics: is refused at load time, naming the file, line and field', () => {
    const withCost = config.replace('    epochs: { fixed: 3 }\n', '    epochs: { fixed: 3 }\n  costMetric: seconds\n');
    const text = `${withCost}metrics: [rss_mb]\n`;
    let error: unknown;
    try {
      parseConfigText(text, 'loop.config.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigFileError);
    expect((error as ConfigFileError).message).toContain(
      'loop.config.yaml:12: proposer.costMetric: costMetric "seconds" is not one of metrics: (rss_mb)',
    );
    // An empty name: the schema's one error, not a second one about metrics:.
    try {
      parseConfigText(text.replace('costMetric: seconds', "costMetric: ''"), 'loop.config.yaml');
    } catch (e) {
      error = e;
    }
    expect((error as ConfigFileError).message).toContain('loop.config.yaml:12: proposer.costMetric: Too small');
    expect((error as ConfigFileError).message).not.toContain('is not one of metrics');
  });

  it("costMetric reaches the model: with the rows' costs it proposes a cheaper config than without", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loop-cli-tpe-cost-'));
    try {
      const propose = async (cost: boolean) => {
        const text =
          'targetFiles: [params.json]\nrunCommand: node eval.mjs\nmetricName: score\nmetrics: [seconds]\n' +
          'proposer:\n  type: tpe\n  file: params.json\n' +
          '  space:\n    x: { min: 0, max: 1 }\n    y: { min: 0, max: 1 }\n' +
          (cost ? '  costMetric: seconds\n' : '');
        const c = parseConfigText(text, 'loop.config.yaml');
        // Ten rows: the loss falls with x, the cost (seconds) rises steeply with y.
        const rows = Array.from({ length: 10 }, (_, i) => {
          const x = ((i * 7) % 10) / 10 + 0.05;
          const y = ((i * 3) % 10) / 10 + 0.05;
          const status = i === 0 ? 'baseline' : 'reverted';
          const params = { x, y };
          const metrics = { seconds: Math.exp(5 * y) };
          return {
            iteration: i,
            candidateId: '',
            score: 1 - x,
            status,
            description: `x 0.5 -> ${x}`,
            data: { params, metrics },
          };
        });
        await writeFile(join(dir, 'params.json'), JSON.stringify({ x: 0.05, y: 0.05 }));
        const proposer = createProposer(
          c,
          dir,
          join(dir, 'results.tsv'),
          () => {},
          () => {},
        );
        const context = {
          iteration: 10,
          attempt: 0,
          history: rows,
          baseline: 0.95,
          best: 0.05,
          direction: 'minimize',
          hints: [],
          signal: new AbortController().signal,
        };
        await proposer.propose(context as unknown as ProposalContext);
        return JSON.parse(await readFile(join(dir, 'params.json'), 'utf8')) as { x: number; y: number };
      };
      const withCost = await propose(true);
      const without = await propose(false);
      expect(withCost).not.toEqual(without);
      expect(withCost.y).toBeLessThan(without.y);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
