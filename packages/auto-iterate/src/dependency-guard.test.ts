import type { ArtifactChanges, GuardInput } from '@loop/core';
import { describe, expect, it } from 'vitest';
import { createNoNewDependenciesGuard, isDependencyManifest } from './dependency-guard.js';

const input = (changed: string[]) =>
  ({
    iteration: 1,
    history: [],
    best: 0,
    direction: 'maximize',
    signal: new AbortController().signal,
    description: 'x',
    changes: { changed, violations: [] } as ArtifactChanges,
  }) as GuardInput & { changes: ArtifactChanges; description: string };

describe('no-new-dependencies guard (seed 001: CANNOT 安装新依赖或修改 pyproject.toml)', () => {
  it('names npm, Python, Go, Rust and Ruby manifests and requirements*.txt, by file name at any depth', () => {
    for (const p of [
      'package.json',
      'skill/pyproject.toml',
      'a/b/requirements-dev.txt',
      'go.sum',
      'Cargo.lock',
      'x/Gemfile',
    ])
      expect(isDependencyManifest(p), p).toBe(true);
    for (const p of ['SKILL.md', 'scripts/run.py', 'notes/package.md', 'requirements.md'])
      expect(isDependencyManifest(p), p).toBe(false);
  });

  it(
    'rejects a candidate that touches one before it runs, and passes one ' + 'that does not or an allowed target',
    async () => {
      const guard = createNoNewDependenciesGuard(['package.json']);
      expect(await guard.beforeRun!(input(['skill/SKILL.md', 'skill/requirements.txt']))).toEqual({
        action: 'reject',
        note: 'changed skill/requirements.txt; installing dependencies is not allowed (seed 001)',
      });
      expect(await guard.beforeRun!(input(['skill/SKILL.md']))).toBeUndefined();
      expect(await guard.beforeRun!(input(['package.json']))).toBeUndefined();
    },
  );
});
