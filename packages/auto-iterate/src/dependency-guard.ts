import { posix } from 'node:path';
import type { Guard } from '@loop/core';

/**
 * File names that declare or pin dependencies (npm, pnpm, yarn, Python, Go, Rust, Ruby): what
 * seed 001's "CANNOT 安装新依赖或修改 pyproject.toml" protects.
 */
export const DEPENDENCY_MANIFESTS: ReadonlySet<string> = new Set([
  'package.json',
  'package-lock.json',
  'npm-shrinkwrap.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'bun.lockb',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'Pipfile',
  'Pipfile.lock',
  'poetry.lock',
  'uv.lock',
  'go.mod',
  'go.sum',
  'Cargo.toml',
  'Cargo.lock',
  'Gemfile',
  'Gemfile.lock',
]);

/** True for a dependency manifest by its file name (also `requirements*.txt`). */
export function isDependencyManifest(path: string): boolean {
  const name = posix.basename(path.replaceAll('\\', '/'));
  return DEPENDENCY_MANIFESTS.has(name) || /^requirements.*\.txt$/.test(name);
}

/**
 * A guard that rejects, before it runs, a candidate that creates, edits or deletes a dependency
 * manifest ({@link isDependencyManifest}) anywhere, even inside a mutable folder (a skill-full
 * skill folder, a memory folder): seed 001 "CANNOT 安装新依赖或修改 pyproject.toml". The row is
 * `discard` with `(no-new-dependencies: changed <paths>)`. Paths listed in `allow` (a target that
 * is itself a manifest) pass.
 */
export function createNoNewDependenciesGuard(allow: readonly string[] = []): Guard {
  const allowed = new Set(allow.map((p) => posix.normalize(p)));
  return {
    name: 'no-new-dependencies',
    beforeRun: ({ changes }) => {
      const hit = (changes?.changed ?? []).filter((p) => isDependencyManifest(p) && !allowed.has(posix.normalize(p)));
      return hit.length > 0
        ? { action: 'reject', note: `changed ${hit.join(', ')}; installing dependencies is not allowed (seed 001)` }
        : undefined;
    },
  };
}
