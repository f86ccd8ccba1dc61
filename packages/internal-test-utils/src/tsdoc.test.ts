// Every export of every published package has TSDoc (docs/api is generated from it).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { undocumentedExports } from './tsdoc.js';

const packages = fileURLToPath(new URL('../../', import.meta.url));
const published = readdirSync(packages).filter((dir) => {
  try {
    return JSON.parse(readFileSync(join(packages, dir, 'package.json'), 'utf8')).private !== true;
  } catch {
    return false;
  }
});

describe('TSDoc on the public API', () => {
  it.each(published)(
    'every export of @loop/%s has a TSDoc comment',
    (dir) => {
      const { exports, undocumented } = undocumentedExports(join(packages, dir, 'src', 'index.ts'));
      expect(exports.length).toBeGreaterThan(0);
      expect(undocumented).toEqual([]);
    },
    120_000,
  );
});
