import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LoopError } from '../../contracts/errors.js';
import type { MemoryArtifact } from '../../artifacts/memory-artifact.js';
import type { ProposalContext } from '../../contracts/proposer.js';
import { writeTextAtomic } from '../../files/state-file.js';
import type { MaybePromise } from '../../contracts/types.js';

/**
 * Where a config-editing proposer reads and writes its flat config (parameter name to value). The
 * context is passed so an adapter can follow `context.artifact` / `context.workingCopy` in a
 * parallel batch (edit the candidate's copy, not the main artifact).
 */
export interface ConfigAdapter {
  /** Used in errors and logs. */
  readonly name: string;
  /** The relative path it writes, for `Proposal.changedFiles` and `EditPlan.files`; absent in memory. */
  readonly path?: string;
  /** Reads the current config; throws when it is not an object. */
  readonly read: (context: ProposalContext) => MaybePromise<Record<string, unknown>>;
  /** Replaces the config. */
  readonly write: (config: Record<string, unknown>, context: ProposalContext) => MaybePromise<void>;
}

/** How a config file is parsed and printed. */
export interface ConfigCodec {
  /** Text to value. */
  readonly parse: (text: string) => unknown;
  /** Value to text. */
  readonly stringify: (value: Record<string, unknown>) => string;
}

/** The JSON codec: 2-space indent and a final newline. */
export const jsonCodec: ConfigCodec = {
  parse: (text) => JSON.parse(text),
  stringify: (v) => `${JSON.stringify(v, null, 2)}\n`,
};

/** Options of {@link createConfigFileAdapter}. */
export interface ConfigFileAdapterOptions {
  /**
   * The workspace directory the file is in (absolute). In a parallel batch the candidate's `workingCopy.dir` is used
   * instead.
   */
  readonly dir: string;
  /** The file, relative to `dir` (e.g. `config.json`, `conf/params.yaml`). */
  readonly file: string;
  /**
   * How to parse and print it. @default JSON. For YAML pass the `yaml` package's functions
   * (`{ parse: YAML.parse, stringify: (v) => YAML.stringify(v) }`): core bundles no YAML parser.
   */
  readonly codec?: ConfigCodec;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A config file in the workspace, written atomically. Works for JSON (the default codec) and YAML
 * (pass a codec): a flat mapping of parameter names to scalars; other keys are kept as they are.
 *
 * @throws {LoopError} `PROPOSER_FAILED` from `read` when the file is missing, does not parse, or is not an object.
 */
export function createConfigFileAdapter(options: ConfigFileAdapterOptions): ConfigAdapter {
  const codec = options.codec ?? jsonCodec;
  const where = (context: ProposalContext) => join(context.workingCopy?.dir ?? options.dir, options.file);
  return {
    name: `file(${options.file})`,
    path: options.file,
    read: async (context) => {
      const path = where(context);
      try {
        const value = codec.parse(await readFile(path, 'utf8'));
        if (!isObject(value)) throw new Error('not an object of parameters');
        return value;
      } catch (error) {
        throw new LoopError('PROPOSER_FAILED', `[loop] [config] cannot read ${path}: ${(error as Error).message}`, {
          cause: error,
        });
      }
    },
    write: (config, context) => writeTextAtomic(where(context), codec.stringify(config)),
  };
}

/**
 * An in-memory artifact holding a flat config object. In a parallel batch it edits the candidate's
 * copy (`context.artifact`, a {@link MemoryArtifact} from `createMemoryWorkingCopies`).
 *
 * @throws {LoopError} `PROPOSER_FAILED` from `read` when the value is not an object.
 */
export function createMemoryConfigAdapter(artifact: MemoryArtifact<Record<string, unknown>>): ConfigAdapter {
  const target = (context: ProposalContext) =>
    context.artifact && 'get' in context.artifact
      ? (context.artifact as MemoryArtifact<Record<string, unknown>>)
      : artifact;
  return {
    name: `memory(${artifact.name})`,
    read: (context) => {
      const value = target(context).get();
      if (!isObject(value))
        throw new LoopError(
          'PROPOSER_FAILED',
          `[loop] [config] ${artifact.name} does not hold an object of parameters`,
        );
      return { ...value };
    },
    write: (config, context) => target(context).set({ ...config }),
  };
}
