#!/usr/bin/env node
// Splits each `import { ... } from '@loop/core'` (and `const { ... } = await import('@loop/core')`) in the
// repository's TypeScript, scripts and Markdown by the core entry each name lives in now
// (`@loop/core`, `@loop/core/policies`, ...), read from core's barrels (packages/core/src/<entry>.ts).
// For a branch written before core's lean main entry: `node scripts/split-core-imports.mjs`, then Prettier
// on the changed files it lists. A name no entry exports is an error naming the file.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const core = JSON.parse(readFileSync(join(root, 'packages/core/package.json'), 'utf8'));
const entries = Object.keys(core.exports).map((k) => (k === '.' ? 'index' : k.slice(2)));
const where = {};
for (const entry of entries) {
  const barrel = readFileSync(join(root, 'packages/core/src', `${entry}.ts`), 'utf8');
  for (const m of barrel.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s*from/g))
    for (const raw of m[1].split(',')) {
      const name = raw
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()
        .trim();
      if (name) where[name] = entry;
    }
}
const spec = (entry) => (entry === 'index' ? '@loop/core' : `@loop/core/${entry}`);
const files = execFileSync('git', ['ls-files', '*.ts', '*.tsx', '*.mts', '*.mjs', '*.md'], {
  cwd: root,
  encoding: 'utf8',
})
  .trim()
  .split('\n')
  .filter((f) => !f.startsWith('docs/api/') && f !== 'scripts/split-core-imports.mjs')
  .filter((f) => !/^packages\/core\/(src|test|bench)\//.test(f));
const nameOf = (raw) =>
  raw
    .replace(/^type\s+/, '')
    .split(/\s+as\s+/)[0]
    .trim();
const entryOf = (file, name) => {
  if (!where[name]) throw new Error(`${file}: @loop/core has no export named ${name}`);
  return where[name];
};
for (const file of files) {
  const text = readFileSync(join(root, file), 'utf8');
  let out = text.replace(
    /^([ \t]*)import\s+(type\s+)?\{([^}]*)\}\s*from\s*'@loop\/core';?/gm,
    (all, indent, typeKw = '', list) => {
      const groups = new Map();
      for (const raw of list
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const entry = entryOf(file, nameOf(raw));
        groups.set(entry, [...(groups.get(entry) ?? []), raw]);
      }
      if (groups.size === 1 && groups.has('index')) return all; // nothing moved: left as written
      return [...groups]
        .sort(([a], [b]) => entries.indexOf(a) - entries.indexOf(b))
        .map(([entry, names]) => {
          const line = `${indent}import ${typeKw}{ ${names.join(', ')} } from '${spec(entry)}';`;
          if (!file.endsWith('.md') || line.length <= 100) return line; // Prettier wraps the TypeScript
          return (
            `${indent}import ${typeKw}{\n${names.map((n) => `${indent}  ${n},`).join('\n')}\n${indent}} ` +
            `from '${spec(entry)}';`
          );
        })
        .join('\n');
    },
  );
  out = out.replace(/const\s*\{([^}]*)\}\s*=\s*await\s+import\('@loop\/core'\)/g, (all, list) => {
    const used = new Set(
      list
        .split(',')
        .map((s) => s.split(':')[0].trim())
        .filter(Boolean)
        .map((n) => entryOf(file, n)),
    );
    if (used.size !== 1) throw new Error(`${file}: one dynamic import of @loop/core takes names from ${[...used]}`);
    return all.replace(`'@loop/core'`, `'${spec([...used][0])}'`);
  });
  if (out !== text) {
    writeFileSync(join(root, file), out);
    console.log(file);
  }
}
