import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  createAgentCommand,
  createAgentFlowExecutor,
  createDirectoryWorkspace,
  createAnswersFileAsker,
  createFlowPipelineExecutor,
  createGitWorktree,
  createNotifyCommand,
  createReadlineAsker,
  type AutoiterOptions,
} from '@loop/collie';
import { COLLIE_CONFIG_FILES } from '../cli-constants.js';
import { ConfigFileError, findConfigFile, loadConfigFileOf, type ConfigKind } from '../load-config.js';
import { collieConfigJsonSchema, collieConfigSchema, type CollieConfig } from './config.js';

/** The file names `loop collie` looks for, in order, when no config is named. */
export { COLLIE_CONFIG_FILES };

/** The `loop collie` config kind, for the shared YAML-with-line-numbers loader. */
export const COLLIE_CONFIG_KIND: ConfigKind<typeof collieConfigSchema> = {
  schema: collieConfigSchema,
  jsonSchema: collieConfigJsonSchema,
};

/** A loaded collie config with its paths resolved. */
export interface LoadedCollieConfig {
  /** The validated config, defaults applied. */
  readonly config: CollieConfig;
  /** Absolute path of the config file. */
  readonly file: string;
  /** Absolute project directory (`projectDir` against the config file's folder). */
  readonly projectDir: string;
  /** Absolute state root (`stateRoot`, default `~/.collie`). */
  readonly stateRoot: string;
  /** Absolute agent log directory (`agent.logDir`, default `<stateRoot>/autoiter/<projectId>/agent-logs`). */
  readonly agentLogDir: string;
  /** Absolute answers file, when the config names one. */
  readonly answers: string | undefined;
}

/** Resolves `p` against `base`; a leading `~/` is the home directory. */
function resolvePath(base: string, p: string): string {
  if (p === '~' || p.startsWith('~/')) return join(homedir(), p.slice(1));
  return isAbsolute(p) ? p : resolve(base, p);
}

/**
 * Finds a collie config: `file` if given (resolved against `cwd`), else the first of
 * {@link COLLIE_CONFIG_FILES} in `cwd`.
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` when no file is found.
 */
export function findCollieConfigFile(file: string | undefined, cwd: string): string {
  return findConfigFile(
    file,
    cwd,
    COLLIE_CONFIG_FILES,
    'run "loop collie init" to write one, or name it: "loop collie run <config>"',
  );
}

/**
 * Reads and validates a collie config (YAML, JSON or a TypeScript module) and resolves its paths
 * against the config file's folder. Errors name `<file>:<line>: <field>: <message>`.
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` when the file is missing, malformed or invalid.
 */
export async function loadCollieConfig(file: string): Promise<LoadedCollieConfig> {
  const config = await loadConfigFileOf(COLLIE_CONFIG_KIND, file);
  const base = dirname(file);
  const stateRoot = config.stateRoot === undefined ? join(homedir(), '.collie') : resolvePath(base, config.stateRoot);
  const answers = config.answers === undefined ? undefined : resolvePath(base, config.answers);
  // A queued run's answers are read at Stage 0, after an agent dispatch: check the file exists now.
  if (answers !== undefined && !existsSync(answers))
    throw new ConfigFileError(file, [{ path: 'answers', message: `the answers file ${answers} does not exist` }]);
  return {
    config,
    file,
    projectDir: resolvePath(base, config.projectDir),
    stateRoot,
    agentLogDir:
      config.agent.logDir === undefined
        ? join(stateRoot, 'autoiter', config.projectId, 'agent-logs')
        : resolvePath(base, config.agent.logDir),
    answers,
  };
}

/** Where the controller writes and (for an interactive run) reads. */
export interface CollieHost {
  /** Receives the ticks and the completion signal, one line per call. */
  readonly output: (line: string) => void;
  /** The terminal the interactive asker reads from. @default process.stdin */
  readonly input?: NodeJS.ReadableStream;
  /** The terminal the interactive asker writes its questions to. @default process.stdout */
  readonly prompts?: NodeJS.WritableStream;
}

/**
 * The `createAutoiter` options of a loaded collie config: a command agent, a file asker (queued,
 * with `answers`) or a readline asker (interactive), a git worktree (or the project directory),
 * the flow pipeline (or the agent flow), the notify command; the flow commands and the trigger in
 * the sandbox the config names (`flow.sandbox`, `trigger.sandbox`: auto by default).
 */
export function collieAutoiterOptions(loaded: LoadedCollieConfig, host: CollieHost): AutoiterOptions {
  const { config: c, projectDir } = loaded;
  const flow = c.flow;
  // core prints each sandbox warning once per reason
  const warn = (message: string) => void process.stderr.write(`${message}\n`);
  return {
    files: { stateRoot: loaded.stateRoot },
    projectId: c.projectId,
    sessionId: c.sessionId,
    projectDir,
    task: c.task,
    ...(c.scalarExtraction === undefined ? {} : { score: { scalarExtraction: c.scalarExtraction } }),
    stop: {
      ...(c.maxIterations === undefined ? {} : { maxIterations: c.maxIterations }),
      ...(c.maxTokens === undefined ? {} : { maxTokens: c.maxTokens }),
      ...(c.maxWallclockMin === undefined ? {} : { maxWallclockMin: c.maxWallclockMin }),
    },
    agent: createAgentCommand({
      command: c.agent.command,
      cwd: projectDir,
      logDir: loaded.agentLogDir,
      timeoutMs: Math.round(c.agent.timeoutS * 1000),
      ...(c.agent.usagePattern === undefined ? {} : { usagePattern: c.agent.usagePattern }),
      ...(c.agent.replyField === undefined ? {} : { replyField: c.agent.replyField }),
      sandbox: c.agent.sandbox,
      writable: c.agent.writable.map((w) => resolvePath(dirname(loaded.file), w)),
      network: c.agent.network,
      onSandboxWarning: warn,
    }),
    asker:
      loaded.answers === undefined
        ? createReadlineAsker({
            ...(host.input ? { input: host.input } : {}),
            ...(host.prompts ? { output: host.prompts } : {}),
          })
        : createAnswersFileAsker(loaded.answers),
    workspace: c.worktree ? createGitWorktree({ repoDir: projectDir }) : createDirectoryWorkspace(projectDir),
    flow:
      flow === undefined || flow.type === 'agent'
        ? (agent) => createAgentFlowExecutor(agent)
        : (agent) =>
            createFlowPipelineExecutor({
              agent,
              testCommand: flow.testCommand!,
              ...(flow.reproCommand === undefined ? {} : { reproCommand: flow.reproCommand }),
              ...(flow.reviewRounds === undefined ? {} : { reviewRounds: flow.reviewRounds }),
              ...(flow.finalReview === undefined ? {} : { finalReview: flow.finalReview }),
              ...(flow.timeoutS === undefined ? {} : { timeoutMs: Math.round(flow.timeoutS * 1000) }),
              sandbox: flow.sandbox,
              writable: flow.writable.map((w) => resolvePath(dirname(loaded.file), w)),
              network: flow.network,
              onSandboxWarning: warn,
            }),
    run: {
      sandbox: {
        sandbox: c.trigger.sandbox,
        writable: c.trigger.writable.map((w) => resolvePath(dirname(loaded.file), w)),
        network: c.trigger.network,
        onSandboxWarning: warn,
      },
      ...(c.blockingPatterns === undefined ? {} : { blockingPatterns: c.blockingPatterns }),
    },
    ...(c.deepVerifyConcurrency === undefined ? {} : { parallel: { deepVerify: c.deepVerifyConcurrency } }),
    ...(c.notify === undefined ? {} : { notifier: createNotifyCommand(c.notify) }),
    output: host.output,
  };
}
