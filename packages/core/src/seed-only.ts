import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArtifactChanges } from './artifact.js';
import type { MaybePromise } from './types.js';

/** What a {@link SeedOnlyDetector} sees after a proposal: the changed paths and the proposal's text. */
export interface ProposedChanges extends ArtifactChanges {
  /** The proposal's one-line description. */
  readonly description: string;
  /**
   * The root the changed paths are relative to when the candidate was edited in a parallel batch's
   * working copy (its `dir`); absent for an in-place candidate (the main workspace). @default none
   */
  readonly root?: string;
}

/**
 * Tells the loop whether a proposal changed nothing but a random seed. Such a "win" is noise by
 * construction (an agent can learn to "improve" a noisy score by re-rolling the seed), so the loop
 * flags it: the row description gets ` (seed-only change)`, the `kept` / `reverted` event carries
 * `seedOnly: true` and the keep policy sees `seedOnly` (the noise-aware policy reverts it).
 *
 * The engine calls `capture` on the kept state before each proposal and `isSeedOnlyChange` after
 * it (only when something changed inside the mutable surface), passing what `capture` returned.
 */
export interface SeedOnlyDetector {
  /** Used in logs. */
  readonly name: string;
  /** Records what the detector needs of the state before the edit (for example a config file's content). */
  readonly capture?: () => MaybePromise<unknown>;
  /** True when the only change is a seed. Must not throw for unreadable or unparsable files: return false. */
  readonly isSeedOnlyChange: (changes: ProposedChanges, captured: unknown) => MaybePromise<boolean>;
}

/** The keys whose values differ between two JSON objects (top level; nested values compared as JSON), sorted. */
export function diffJsonKeys(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}

/**
 * True when two JSON config objects differ, and only in `seedKeys` (matched case-insensitively).
 *
 * @param seedKeys - the keys that hold seeds. @default ['seed']
 */
export function isSeedOnlyJsonChange(before: unknown, after: unknown, seedKeys: readonly string[] = ['seed']): boolean {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(before) || !isObject(after)) return false;
  const changed = diffJsonKeys(before, after);
  const seeds = new Set(seedKeys.map((k) => k.toLowerCase()));
  return changed.length > 0 && changed.every((k) => seeds.has(k.toLowerCase()));
}

/** Options of {@link createJsonSeedOnlyDetector}. */
export interface JsonSeedOnlyDetectorOptions {
  /** Absolute path of the JSON config file (for example the workspace's config.json). */
  file: string;
  /** The file's path as the artifact reports it (relative to the artifact root). @default the file's base name */
  artifactPath?: string;
  /** Top-level keys that hold seeds. @default ['seed'] */
  seedKeys?: string[];
}

/**
 * A {@link SeedOnlyDetector} for a JSON config file: a proposal is seed-only when the file is the
 * only changed path and its top-level keys differ only in `seedKeys`. An unreadable or invalid file
 * is never seed-only.
 *
 * @example
 * createLoop({ ..., seedOnlyDetector: createJsonSeedOnlyDetector({ file: join(dir, 'config.json') }) });
 */
export function createJsonSeedOnlyDetector(options: JsonSeedOnlyDetectorOptions): SeedOnlyDetector {
  const artifactPath = options.artifactPath ?? options.file.split('/').pop() ?? options.file;
  const seedKeys = options.seedKeys ?? ['seed'];
  const read = async (file = options.file): Promise<unknown> => {
    try {
      return JSON.parse(await readFile(file, 'utf8'));
    } catch {
      return undefined;
    }
  };
  return {
    name: `json-seed-only(${artifactPath})`,
    capture: () => read(),
    isSeedOnlyChange: async (changes, captured) => {
      if (changes.changed.length !== 1 || changes.changed[0] !== artifactPath) return false;
      return isSeedOnlyJsonChange(captured, await read(changes.root ? join(changes.root, artifactPath) : options.file), seedKeys);
    },
  };
}
