import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAutoiter } from '@loop/collie';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigFileError, parseConfigTextOf } from '../load-config.js';
import { collieStarterConfig } from './init.js';
import { collieAutoiterOptions, COLLIE_CONFIG_KIND, findCollieConfigFile, loadCollieConfig } from './load.js';

const minimal = `projectId: app
task: make it green
agent:
  command: sh agent.sh
`;

function errorOf(text: string, file = '/w/collie.config.yaml'): ConfigFileError {
  try {
    parseConfigTextOf(COLLIE_CONFIG_KIND, text, file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigFileError);
    return error as ConfigFileError;
  }
  throw new Error('expected a ConfigFileError');
}
const lineOf = (text: string, line: string) => text.split('\n').indexOf(line) + 1;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-collie-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('collie config files', () => {
  it('the starter collie.config.yaml validates as written', () => {
    const config = parseConfigTextOf(COLLIE_CONFIG_KIND, collieStarterConfig(), 'collie.config.yaml');
    expect(config).toMatchObject({
      projectId: 'my-app',
      sessionId: 'cli',
      projectDir: '.',
      worktree: true,
      maxIterations: 5,
      flow: { type: 'pipeline', testCommand: 'npm test' },
    });
    expect(config.scalarExtraction).toBe('^score:\\s*(\\S+)');
    expect(config.agent.replyField).toBe('result');
    expect(new RegExp(config.agent.usagePattern!).exec('"input_tokens": 12, "output_tokens": 3')?.groups).toEqual({
      input: '12',
      output: '3',
    });
  });

  it(
    'defaults: sessionId cli, projectDir ".", worktree true, agent timeout ' + '600 s; flow type defaults to pipeline',
    () => {
      const config = parseConfigTextOf(COLLIE_CONFIG_KIND, `${minimal}flow: { testCommand: npm test }\n`, 'c.yaml');
      expect(config).toMatchObject({
        sessionId: 'cli',
        projectDir: '.',
        worktree: true,
        agent: { command: 'sh agent.sh', timeoutS: 600 },
        flow: { type: 'pipeline', testCommand: 'npm test' },
      });
    },
  );

  it('a bad enum names the file, the line, the field and the allowed values (flow.type)', () => {
    const text = `${minimal}flow:\n  type: pipe\n  testCommand: npm test\n`;
    expect(errorOf(text).message).toContain(
      `/w/collie.config.yaml:${lineOf(text, '  type: pipe')}: flow.type: ` +
        `"pipe" is not allowed; allowed values: "pipeline", "agent"`,
    );
  });

  it('an unknown field is reported on its own line with the allowed fields', () => {
    const text = `${minimal}  timeout: 5\n`;
    const message = errorOf(text).message;
    expect(message).toContain(
      `/w/collie.config.yaml:${lineOf(text, '  timeout: 5')}: agent: unknown ` +
        `field "timeout" (did you mean "timeoutS"?); allowed fields: command, ` +
        `timeoutS, usagePattern, replyField, logDir`,
    );
  });

  it('agent.command that is neither a string nor { fast, standard, deep } says what it must be', () => {
    const text = minimal.replace('  command: sh agent.sh', '  command: true');
    expect(errorOf(text).message).toContain(
      `/w/collie.config.yaml:4: agent.command: agent.command must be a shell ` +
        `command (a string) or { fast, standard, deep } commands, one per tier`,
    );
  });

  it('a missing required field is named on the line of its parent; a pipeline flow needs testCommand', () => {
    const text = `projectId: app\nagent:\n  timeoutS: 5\nflow:\n  type: pipeline\n`;
    const error = errorOf(text);
    expect(error.issues.map((i) => [i.path, i.line])).toEqual([
      ['task', 1],
      ['agent.command', 2],
      ['flow.testCommand', 4],
    ]);
    expect(error.message).toContain('/w/collie.config.yaml:1: task: missing required field (expected string)');
    expect(error.message).toContain(
      '/w/collie.config.yaml:4: flow.testCommand: missing required field for type pipeline (expected string)',
    );
  });

  it('values are checked: projectId characters, budgets, regexes (JSON configs name their line too)', () => {
    const text = JSON.stringify(
      { projectId: 'my app', task: 't', agent: { command: 'x' }, maxTokens: -1, blockingPatterns: ['('] },
      null,
      2,
    );
    const error = errorOf(text, '/w/collie.config.json');
    expect(error.issues.map((i) => i.path)).toEqual(['projectId', 'maxTokens', 'blockingPatterns.0']);
    expect(error.message).toContain(
      `/w/collie.config.json:${lineOf(text, '  "projectId": "my app",')}: ` +
        `projectId: projectId may hold letters, digits`,
    );
    expect(error.message).toContain('blockingPatterns.0: a blocking pattern must be a valid regular expression');
  });

  it(
    "relative paths resolve against the config file's folder; logDir " +
      'defaults to <stateRoot>/autoiter/<projectId>/agent-logs, stateRoot to ' +
      '~/.collie',
    async () => {
      const file = join(dir, 'collie.config.yaml');
      writeFileSync(file, `${minimal}projectDir: proj\nstateRoot: state\nanswers: a/answers.yaml\n`);
      await expect(loadCollieConfig(file)).rejects.toThrow(
        `${file}: answers: the answers file ${join(dir, 'a', 'answers.yaml')} does not exist`,
      ); // checked at load, before Stage 0 spends a dispatch
      mkdirSync(join(dir, 'a'));
      writeFileSync(join(dir, 'a', 'answers.yaml'), 'Q1: npm test\n');
      const loaded = await loadCollieConfig(file);
      expect(loaded).toMatchObject({
        file,
        projectDir: join(dir, 'proj'),
        stateRoot: join(dir, 'state'),
        answers: join(dir, 'a', 'answers.yaml'),
        agentLogDir: join(dir, 'state', 'autoiter', 'app', 'agent-logs'),
      });
      writeFileSync(
        file,
        `${minimal}stateRoot: ~/x\nagent:\n  command: c\n  logDir: logs\n`.replace(
          /agent:\n  command: sh agent.sh\n/,
          '',
        ),
      );
      const home = await loadCollieConfig(file);
      expect(home).toMatchObject({
        stateRoot: join(homedir(), 'x'),
        agentLogDir: join(dir, 'logs'),
        answers: undefined,
      });
      writeFileSync(file, minimal);
      expect((await loadCollieConfig(file)).stateRoot).toBe(join(homedir(), '.collie'));
    },
  );

  it('findCollieConfigFile finds collie.config.yaml and otherwise points at "loop collie init"', () => {
    expect(() => findCollieConfigFile(undefined, dir)).toThrow(
      new RegExp(
        String.raw`looked for collie\.config\.yaml, collie\.config\.yml, ` +
          String.raw`collie\.config\.json, collie\.config\.ts\); run "loop collie ` +
          String.raw`init"`,
      ),
    );
    writeFileSync(join(dir, 'collie.config.yaml'), minimal);
    expect(findCollieConfigFile(undefined, dir)).toBe(join(dir, 'collie.config.yaml'));
  });

  it(
    'the mapped options are accepted by createAutoiter (paths absolute, ' + 'flow a factory of the metered agent)',
    async () => {
      const file = join(dir, 'collie.config.yaml');
      writeFileSync(
        file,
        `${minimal}stateRoot: state\nworktree: false\nflow: { type: agent }\nmaxTokens: unlimited\nnotify: "true"\n`,
      );
      const options = collieAutoiterOptions(await loadCollieConfig(file), { output: () => {} });
      expect(options).toMatchObject({
        projectDir: dir,
        files: { stateRoot: join(dir, 'state') },
        stop: { maxTokens: 'unlimited' },
        sessionId: 'cli',
      });
      expect(typeof options.flow).toBe('function');
      expect(options.asker.name).toBe('readline');
      expect(options.notifier?.name).toBe('notify(true)');
      expect(createAutoiter(options).paths.projectDir).toBe(join(dir, 'state', 'autoiter', 'app'));
    },
  );

  it(
    "issue 12: the flow pipeline's commands and the trigger run in the " +
      'sandbox by default (auto, no network); writable paths resolve against ' +
      'the config file',
    async () => {
      const file = join(dir, 'collie.config.yaml');
      writeFileSync(
        file,
        `${minimal}worktree: false\nflow: { type: pipeline, testCommand: "npm ` +
          `test", writable: [cache] }\ntrigger: { sandbox: none, writable: [out] ` +
          `}\n`,
      );
      const loaded = await loadCollieConfig(file);
      expect(loaded.config.flow).toMatchObject({ sandbox: 'auto', writable: ['cache'], network: false });
      expect(parseConfigTextOf(COLLIE_CONFIG_KIND, minimal, '/w/collie.config.yaml').trigger).toEqual({
        sandbox: 'auto',
        writable: [],
        network: false,
      });
      const options = collieAutoiterOptions(loaded, { output: () => {} });
      expect(options.run?.sandbox).toMatchObject({ sandbox: 'none', writable: [join(dir, 'out')], network: false });
      const flow = (
        options.flow as (agent: typeof options.agent) => { settings?: { sandbox?: string; writable?: string[] } }
      )(options.agent);
      expect(flow.settings).toMatchObject({ sandbox: 'auto', writable: [join(dir, 'cache')], network: false });
      expect(errorOf(`${minimal}trigger: { sandbox: jail }\n`).message).toContain('trigger.sandbox');
    },
  );
});
