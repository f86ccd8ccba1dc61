import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { starterConfig } from './starter-config.js';
import { ConfigFileError, findConfigFile, loadConfig, parseConfigText } from './load-config.js';

const minimal = `targetFiles: [config.json]
runCommand: node eval.mjs
metricName: score
proposer:
  type: mutator
  file: config.json
  space: { x: { min: 0, max: 9, integer: true } }
`;

function issuesOf(text: string, file = '/w/loop.config.yaml'): ConfigFileError {
  try {
    parseConfigText(text, file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigFileError);
    return error as ConfigFileError;
  }
  throw new Error('expected a ConfigFileError');
}

describe('config files', () => {
  it(
    "the mutator space is validated at load time with the mutator's own " +
      'rules: <file>:<line>: proposer.space.<param>.<field>',
    () => {
      const text = minimal.replace(
        'space: { x: { min: 0, max: 9, integer: true } }',
        'space:\n    layers:\n      min: 9\n      max: 8\n    lr: { min: 0, max: 1, scale: log }',
      );
      const error = issuesOf(text);
      const maxLine = text.split('\n').indexOf('      max: 8') + 1;
      expect(error.message).toContain(
        `/w/loop.config.yaml:${maxLine}: proposer.space.layers.max: max must be greater than min`,
      );
      expect(error.issues.map((i) => i.path)).toEqual(['proposer.space.layers.max', 'proposer.space.lr.min']);
      expect(error.issues[1]!.message).toBe('a log scale needs min > 0');
    },
  );

  it('a wrong value inside a union names the whole field path once: proposer.space.<param>.<field>', () => {
    const error = issuesOf(
      minimal.replace('space: { x: { min: 0, max: 9, integer: true } }', 'space: { x: { min: "a", max: 9 } }'),
    );
    expect(error.issues.map((i) => i.path)).toEqual(['proposer.space.x.min']);
    expect(error.message).toContain('/w/loop.config.yaml:7: proposer.space.x.min: expected number, found "a"');
  });

  it('an unknown field in a list entry (a pruner) names the fields its type allows and the closest one', () => {
    const error = issuesOf(
      minimal +
        "intermediate:\n  pattern: '^step (\\d+) v ([\\d.]+)$'\n" +
        'prune:\n  pruners:\n    - type: incumbent\n      warmupStep: 3\n',
    );
    expect(error.issues[0]!.message).toMatch(
      /^unknown field "warmupStep" \(did you mean "warmupSteps"\?\); allowed fields: type, .*warmupSteps/,
    );
  });

  it('the starter config of the auto-iterate preset validates as written', () => {
    const config = parseConfigText(starterConfig('auto-iterate'), 'loop.config.yaml');
    expect(config).toMatchObject({
      preset: 'auto-iterate',
      dir: '.',
      targetFiles: ['config.json'],
      metricName: 'score',
      maxIterations: 20,
    });
    expect(config.proposer.type).toBe('tpe');
  });

  it('defaults are applied: direction lower, time budget 300 s, kill timeout 600 s, seed 1', () => {
    const config = parseConfigText(minimal, 'c.yaml');
    expect(config).toMatchObject({
      direction: 'lower',
      timeBudgetS: 300,
      killTimeoutS: 600,
      maxIterations: 0,
      readOnlyFiles: [],
      logFile: 'run.log',
    });
    expect(config.proposer).toMatchObject({ seed: 1 });
  });

  it('a bad enum value names the file, the line, the field and the allowed values', () => {
    const e = issuesOf(`${minimal}direction: down\n`);
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.issues).toEqual([
      { path: 'direction', line: 8, message: '"down" is not allowed; allowed values: "lower", "higher"' },
    ]);
    expect(e.message).toContain(
      '/w/loop.config.yaml:8: direction: "down" is not allowed; allowed values: "lower", "higher"',
    );
  });

  it(
    'a file both in targetFiles and readOnlyFiles is reported at its line in ' +
      'readOnlyFiles (fresh-user trial: it had no file or line)',
    () => {
      const e = issuesOf(`${minimal}readOnlyFiles:\n  - eval.mjs\n  - config.json\n`);
      expect(e.issues).toEqual([
        {
          path: 'readOnlyFiles.1',
          line: 10,
          message: 'config.json is also in targetFiles: a file cannot be both a target and read-only',
        },
      ]);
      expect(e.message).toContain('/w/loop.config.yaml:10: readOnlyFiles.1: config.json is also in targetFiles');
    },
  );

  it('an unknown field is reported on its own line with the allowed fields', () => {
    const e = issuesOf(`runComand: x\n${minimal}`);
    expect(e.issues[0]).toMatchObject({ path: '', line: 1 });
    expect(e.issues[0]!.message).toMatch(
      /unknown field "runComand" \(did you mean "runCommand"\?\); allowed fields: .*runCommand/,
    );
  });

  it(
    'a misspelled field gets "did you mean <closest allowed field>?"; one ' +
      'far from every allowed field gets no guess',
    () => {
      const nested = issuesOf(minimal.replace('  file: config.json', '  file: config.json\n  sede: 3'));
      expect(nested.issues[0]).toMatchObject({ path: 'proposer', line: 7 });
      expect(nested.issues[0]!.message).toMatch(/^unknown field "sede" \(did you mean "seed"\?\); allowed fields: /);
      const far = issuesOf(`${minimal}zzzzzz: 1\n`);
      expect(far.issues[0]!.message).toMatch(/^unknown field "zzzzzz"; allowed fields: /);
    },
  );

  it(
    'a misspelled field of a numeric space parameter lists the numeric ' +
      'fields and guesses from them (not the categorical branch listed first)',
    () => {
      const e = issuesOf(
        minimal.replace(
          'space: { x: { min: 0, max: 9, integer: true } }',
          'space:\n    layers: { min: 1, max: 8, integr: true }',
        ),
      );
      const issue = e.issues.find((i) => i.message.includes('"integr"'));
      expect(issue?.message).toMatch(
        /^unknown field "integr" \(did you mean "integer"\?\); allowed fields: .*\bmin\b.*\bmax\b/,
      );
      expect(issue?.message).not.toMatch(/allowed fields: values, when$/);
    },
  );

  it('a nested error points at the nested line (proposer.type lists tpe, mutator and agent)', () => {
    const e = issuesOf(minimal.replace('type: mutator', 'type: mutatr'));
    expect(e.issues[0]).toMatchObject({
      path: 'proposer.type',
      line: 5,
      message: '"mutatr" is not allowed; allowed values: "tpe", "mutator", "agent"',
    });
  });

  it('a missing required field is named, on the line of its parent', () => {
    const e = issuesOf(minimal.replace('runCommand: node eval.mjs\n', ''));
    expect(e.issues).toEqual([{ path: 'runCommand', line: 1, message: 'missing required field (expected string)' }]);
    const agent = issuesOf(minimal.replace(/proposer:[\s\S]*$/, 'proposer:\n  type: agent\n  command: claude -p\n'));
    expect(agent.issues).toEqual([
      { path: 'proposer.goal', line: 4, message: 'missing required field (expected string)' },
    ]);
  });

  it(
    "a missing nested field is reported on its parent's key line (where the " +
      'field would go), not on the first line under it',
    () => {
      const e = issuesOf(
        minimal.replace(
          /proposer:[\s\S]*$/,
          'proposer:\n  # an agent CLI, prompt on stdin\n\n  type: agent\n  command: claude -p\n',
        ),
      );
      expect(e.issues).toEqual([
        { path: 'proposer.goal', line: 4, message: 'missing required field (expected string)' },
      ]);
      expect(e.message).toContain('/w/loop.config.yaml:4: proposer.goal: missing required field');
      const flow = issuesOf(
        minimal.replace(/proposer:[\s\S]*$/, 'direction: lower\nproposer: { type: agent, command: x }\n'),
      );
      expect(flow.issues).toEqual([
        { path: 'proposer.goal', line: 5, message: 'missing required field (expected string)' },
      ]);
    },
  );

  it('a missing discriminator says it is missing, not "undefined is not allowed"', () => {
    const e = issuesOf(minimal.replace('  type: mutator\n', ''));
    expect(e.issues[0]).toMatchObject({
      path: 'proposer.type',
      line: 4,
      message: 'missing required field; allowed values: "tpe", "mutator", "agent"',
    });
  });

  it('cross-field rules name the field: kill timeout under the budget, mutator file not a target', () => {
    const e = issuesOf(`${minimal}timeBudgetS: 10\nkillTimeoutS: 5\n`);
    expect(e.issues).toEqual([{ path: 'killTimeoutS', line: 9, message: 'killTimeoutS must be at least timeBudgetS' }]);
    const f = issuesOf(minimal.replace('file: config.json', 'file: other.json'));
    expect(f.issues).toEqual([
      { path: 'proposer.file', line: 6, message: 'the mutator file must be one of targetFiles' },
    ]);
  });

  it(
    'a metric pattern is checked at load: its file:line with the regex ' +
      "engine's reason, two groups, or a nested repeat (^(a+)+$)",
    () => {
      const bad = issuesOf(`${minimal}pattern: "^score:("\n`);
      expect(bad.issues).toEqual([
        {
          path: 'pattern',
          line: 8,
          message: expect.stringMatching(
            /^pattern is not a valid regular expression: Invalid regular expression: .*Unterminated group/,
          ),
        },
      ]);
      expect(bad.message).toContain('/w/loop.config.yaml:8: pattern: pattern is not a valid regular expression');
      expect(issuesOf(`${minimal}pattern: "^(score): (\\\\S+)"\n`).issues[0]).toMatchObject({
        path: 'pattern',
        line: 8,
        message: expect.stringContaining('2 capture groups'),
      });
      expect(issuesOf(`${minimal}pattern: "^(a+)+$"\n`).issues[0]).toMatchObject({
        path: 'pattern',
        line: 8,
        message: expect.stringContaining('nests a repeat inside a repeat ((a+)+)'),
      });
      expect(parseConfigText(`${minimal}pattern: "^score=(\\\\S+)"\n`, 'c.yaml').pattern).toBe('^score=(\\S+)');
    },
  );

  it('the metric channel fields: match defaults to last, metricFile and fingerprintPaths pass through', () => {
    expect(parseConfigText(minimal, 'c.yaml')).toMatchObject({ match: 'last', fingerprintPaths: [] });
    const config = parseConfigText(
      `${minimal}match: first\nmetricFile: .loop/metric.txt\nfingerprintPaths: [node_modules]\n`,
      'c.yaml',
    );
    expect(config).toMatchObject({
      match: 'first',
      metricFile: '.loop/metric.txt',
      fingerprintPaths: ['node_modules'],
    });
    expect(issuesOf(`${minimal}match: final\n`).issues[0]).toMatchObject({ path: 'match', line: 8 });
  });

  it(
    'costBudget and tokenBudget (issue 29) are checked at load with ' +
      'file:line: a budget must be positive, tokens whole',
    () => {
      const text = `${minimal}costBudget: -2\ntokenBudget: 1.5\n`;
      const error = issuesOf(text);
      const lines = text.split('\n');
      expect(error.message).toContain(`/w/loop.config.yaml:${lines.indexOf('costBudget: -2') + 1}: costBudget:`);
      expect(error.message).toContain(`/w/loop.config.yaml:${lines.indexOf('tokenBudget: 1.5') + 1}: tokenBudget:`);
      expect(parseConfigText(`${minimal}costBudget: 2.5\ntokenBudget: 500000\n`, 'x.yaml')).toMatchObject({
        costBudget: 2.5,
        tokenBudget: 500000,
      });
      const agent = parseConfigText(
        minimal.replace(/proposer:[\s\S]*$/, 'proposer:\n  type: agent\n  command: claude -p\n  goal: g\n'),
        'x.yaml',
      );
      expect(agent.proposer).toMatchObject({ notesMaxLines: 40, notesMaxBytes: 4096, discardedDiffs: 3 });
    },
  );

  it('a YAML syntax error names the line', () => {
    const e = issuesOf('targetFiles: [a\nrunCommand: x\n');
    expect(e.issues[0]!.message).toMatch(/^not valid YAML/);
    expect(e.issues[0]!.line).toBeGreaterThanOrEqual(1);
  });

  it('JSON configs report the JSON path and its line; JSON syntax errors are reported as such', () => {
    const json = JSON.stringify(
      {
        targetFiles: ['config.json'],
        runCommand: 'x',
        metricName: 'm',
        timeBudgetS: 'slow',
        proposer: { type: 'agent', command: 'c', goal: 'g' },
      },
      null,
      2,
    );
    const e = issuesOf(json, '/w/loop.config.json');
    expect(e.issues).toEqual([{ path: 'timeBudgetS', line: 7, message: 'expected number, found "slow"' }]);
    expect(e.message).toContain('/w/loop.config.json:7: timeBudgetS');
    expect(issuesOf('{ "a": ', '/w/c.json').issues[0]!.message).toMatch(/^not valid JSON/);
  });

  it('loadConfig resolves dir against the config file, and findConfigFile finds loop.config.yaml', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loop-cli-config-'));
    writeFileSync(join(dir, 'loop.config.yaml'), `dir: ws\n${minimal}`);
    const file = findConfigFile(undefined, dir);
    expect(file).toBe(join(dir, 'loop.config.yaml'));
    expect((await loadConfig(file)).dir).toBe(join(dir, 'ws'));
    expect(() => findConfigFile(undefined, join(dir, 'ws'))).toThrow(/no config file found/);
    await expect(loadConfig(join(dir, 'nope.yaml'))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('cannot read the config file: ENOENT'),
    });
  });
});
