import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Artifact, ArtifactChanges } from '../contracts/artifact.js';
import type { KeepPolicy } from '../contracts/keep-policy.js';
import type { MaybePromise } from '../contracts/types.js';

/** What a {@link SeedOnlyDetector} sees after a proposal: the changed paths and the proposal's text. */
export interface ProposedChanges extends ArtifactChanges {
  /** The proposal's one-line description. */
  readonly description: string;
  /**
   * The root the changed paths are relative to when the candidate was edited in a parallel batch's
   * working copy (its `dir`); absent for an in-place candidate (the main workspace). @default none
   */
  readonly root?: string;
  /** The artifact the candidate was edited in: a parallel batch's copy's, else the loop's. @default none */
  readonly artifact?: Artifact;
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
  /**
   * Records what the detector needs of the state before the edit (for example a config file's
   * content); `artifact` is the one the candidate is edited in (a parallel batch's copy's).
   */
  readonly capture?: (artifact?: Artifact) => MaybePromise<unknown>;
  /** True when the only change is a seed. Must not throw for unreadable or unparsable files: return false. */
  readonly isSeedOnlyChange: (changes: ProposedChanges, captured: unknown) => MaybePromise<boolean>;
}

/**
 * True when `key` is named like a seed (case-insensitive): `seed`, `*_seed` / `*-seed` / `*.seed`
 * (`random_seed`, `data-seed`), camelCase `*Seed` (`randomSeed`), `seed_*` (`seed_value`), or one of
 * `extra` (issue 17: "matching any path and key configured or named like a seed").
 */
export function isSeedKey(key: string, extra: readonly string[] = []): boolean {
  const lower = key.toLowerCase();
  if (extra.some((k) => k.toLowerCase() === lower)) return true;
  return /^seed$|[_.-]seed$|^seed[_.-]/.test(lower) || /[a-z0-9]Seed$/.test(key);
}

/** The keys whose values differ between two JSON objects (top level; nested values compared as JSON), sorted. */
export function diffJsonKeys(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The leaf key paths whose values differ (nested plain objects walked; arrays compared whole), each as its key chain.
 */
function diffLeaves(before: unknown, after: unknown, path: string[] = []): string[][] {
  if (isObject(before) && isObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys].flatMap((k) => diffLeaves(before[k], after[k], [...path, k]));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [path];
}

/**
 * True when two config objects differ, and only in seeds: every changed value, at any depth
 * (`{ train: { seed } }`), sits under a key named like a seed ({@link isSeedKey}) or one of
 * `seedKeys` (matched case-insensitively). Anything but two plain objects is never seed-only.
 *
 * @param seedKeys - extra keys that hold seeds, besides those named like one. @default []
 */
export function isSeedOnlyJsonChange(before: unknown, after: unknown, seedKeys: readonly string[] = []): boolean {
  if (!isObject(before) || !isObject(after)) return false;
  const changed = diffLeaves(before, after);
  return changed.length > 0 && changed.every((path) => path.length > 0 && isSeedKey(path[path.length - 1]!, seedKeys));
}

const ASSIGNMENT = /^(\s*(?:--|-)?["']?([A-Za-z_][\w.-]*)["']?\s*[:=]?\s*)(.*?)\s*,?\s*$/;

/**
 * True when two texts differ, and only in lines that assign a seed (`seed: 3`, `random_seed = 4`,
 * `"seed": 5,`, `--seed 6`, `export DATA_SEED=7`): the same number of lines, and each changed pair of
 * lines has the same key, named like a seed or one of `seedKeys`. JSON texts are compared as
 * objects ({@link isSeedOnlyJsonChange}) so a one-line JSON file works too.
 */
export function isSeedOnlyTextChange(before: string, after: string, seedKeys: readonly string[] = []): boolean {
  try {
    return isSeedOnlyJsonChange(JSON.parse(before), JSON.parse(after), seedKeys);
  } catch {
    // not JSON: compare line by line
  }
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length !== b.length || before === after) return false;
  return a.every((line, i) => {
    if (line === b[i]) return true;
    const x = ASSIGNMENT.exec(line.replace(/^\s*export\s+/, ''));
    const y = ASSIGNMENT.exec(b[i]!.replace(/^\s*export\s+/, ''));
    return x !== null && y !== null && x[2] === y[2] && x[1] === y[1] && isSeedKey(x[2]!, seedKeys);
  });
}

/** Options of {@link createJsonSeedOnlyDetector}. */
export interface JsonSeedOnlyDetectorOptions {
  /** Absolute path of the JSON config file (for example the workspace's config.json). */
  file: string;
  /**
   * The file's path as the artifact reports it (relative to the artifact root). @default any changed
   * path the absolute `file` ends with (`conf/config.json` matches `/ws/conf/config.json`)
   */
  artifactPath?: string;
  /** Extra keys that hold seeds, besides those named like one ({@link isSeedKey}). @default [] */
  seedKeys?: string[];
}

/**
 * A {@link SeedOnlyDetector} for a JSON config file: a proposal is seed-only when the file is the
 * only changed path and it differs only in seeds ({@link isSeedOnlyJsonChange}). An unreadable or
 * invalid file is never seed-only.
 *
 * @example
 * createLoop({ ..., keep: { seedOnlyDetector: createJsonSeedOnlyDetector({ file: join(dir, 'config.json') }) } });
 */
export function createJsonSeedOnlyDetector(options: JsonSeedOnlyDetectorOptions): SeedOnlyDetector {
  const matches = (p: string) =>
    options.artifactPath !== undefined
      ? p === options.artifactPath
      : options.file === p || options.file.endsWith(`/${p}`);
  const seedKeys = options.seedKeys ?? [];
  const read = async (file = options.file): Promise<unknown> => {
    try {
      return JSON.parse(await readFile(file, 'utf8'));
    } catch {
      return undefined;
    }
  };
  return {
    name: `json-seed-only(${options.artifactPath ?? options.file.split('/').pop() ?? options.file})`,
    capture: () => read(),
    isSeedOnlyChange: async (changes, captured) => {
      if (changes.changed.length !== 1 || !matches(changes.changed[0]!)) return false;
      return isSeedOnlyJsonChange(
        captured,
        await read(changes.root ? join(changes.root, changes.changed[0]!) : options.file),
        seedKeys,
      );
    },
  };
}

/** Options of {@link createSeedOnlyDetector}. */
export interface SeedOnlyDetectorOptions {
  /** The workspace root the artifact's changed paths are relative to. */
  readonly root: string;
  /**
   * The files (relative to `root`) that may hold seeds; a proposal is seed-only when every changed
   * path is one of them and each differs only in seed lines or keys ({@link isSeedOnlyTextChange}).
   */
  readonly files: readonly string[];
  /** Extra keys that hold seeds, besides those named like one. @default [] */
  readonly seedKeys?: readonly string[];
}

/**
 * A {@link SeedOnlyDetector} for config files of any format (JSON at any depth; YAML, TOML, INI,
 * `.env`, Python or shell assignments line by line). Unreadable files are never seed-only.
 */
export function createSeedOnlyDetector(options: SeedOnlyDetectorOptions): SeedOnlyDetector {
  const read = async (path: string): Promise<string | undefined> => readFile(path, 'utf8').catch(() => undefined);
  const files = new Set(options.files);
  return {
    name: `seed-only(${options.files.join(', ')})`,
    capture: async () =>
      new Map(await Promise.all(options.files.map(async (f) => [f, await read(join(options.root, f))] as const))),
    isSeedOnlyChange: async (changes, captured) => {
      if (changes.changed.length === 0 || !changes.changed.every((p) => files.has(p))) return false;
      const before =
        captured instanceof Map ? (captured as Map<string, string | undefined>) : new Map<string, string | undefined>();
      for (const p of changes.changed) {
        const a = before.get(p);
        const b = await read(join(changes.root ?? options.root, p));
        if (a === undefined || b === undefined || !isSeedOnlyTextChange(a, b, options.seedKeys)) return false;
      }
      return true;
    },
  };
}

/**
 * A {@link SeedOnlyDetector} for an in-memory artifact holding a config object (`createMemoryArtifact`):
 * seed-only when the value differs only in seeds ({@link isSeedOnlyJsonChange}).
 *
 * @param get - returns the artifact's current value (`artifact.get`)
 * @param seedKeys - extra keys that hold seeds. @default []
 */
export function createMemorySeedOnlyDetector(get: () => unknown, seedKeys: readonly string[] = []): SeedOnlyDetector {
  // In a parallel batch the candidate is edited in its copy's artifact, not the one `get` reads.
  const valueOf = (artifact?: Artifact) =>
    artifact && 'get' in artifact && typeof artifact.get === 'function' ? (artifact.get as () => unknown)() : get();
  return {
    name: 'memory-seed-only',
    capture: (artifact) => structuredClone(valueOf(artifact)),
    isSeedOnlyChange: (changes, captured) => isSeedOnlyJsonChange(captured, valueOf(changes.artifact), seedKeys),
  };
}

/**
 * Wraps any keep policy so that a proposal flagged as seed-only is reverted without asking it.
 * `createLoop` already applies this rule to every policy (issue 17: a seed-only change is never
 * kept); the wrapper is for a policy consulted outside the engine (a preset's own stages).
 */
export function rejectingSeedOnly(policy: KeepPolicy): KeepPolicy {
  return {
    name: policy.name,
    decide: (input) =>
      input.seedOnly
        ? { keep: false, reason: 'seed-only change: a new seed is noise, not an improvement' }
        : policy.decide(input),
  };
}
