import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The one-screen map at the top of docs/concepts.md must match the tree (issue 30).
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const concepts = readFileSync(join(repo, 'docs/concepts.md'), 'utf8');
const map = /## The map\n\n```\n([^]*?)```/.exec(concepts)?.[1] ?? '';
const dirs = (dir: string) => readdirSync(dir).filter((d) => statSync(join(dir, d)).isDirectory());

describe("docs/concepts.md's map of the repository", () => {
  it('names every package folder and every entry each package.json exports', () => {
    expect(map).not.toBe('');
    for (const name of dirs(join(repo, 'packages')).filter((d) =>
      existsSync(join(repo, 'packages', d, 'package.json')),
    )) {
      expect(map, `packages/${name}`).toContain(`${name}/`);
      const pkg = JSON.parse(readFileSync(join(repo, 'packages', name, 'package.json'), 'utf8'));
      for (const entry of Object.keys(pkg.exports ?? {})) {
        if (entry === '.' || entry.endsWith('.json') || pkg.private) continue;
        expect(map, `${pkg.name}${entry.slice(1)}`).toContain(entry.slice(1));
      }
    }
  });

  it("names every folder of core's source", () => {
    for (const folder of dirs(join(repo, 'packages/core/src')).filter((d) => d !== 'test-fixtures')) {
      expect(map, `packages/core/src/${folder}`).toContain(`${folder}/`);
    }
  });
});
