// The published packages, as a user gets them: every public package packed with `pnpm pack`
// (workspace:* rewritten, publishConfig applied), checked with publint and
// @arethetypeswrong/cli, installed together into a temp project with npm from the registry, and
// every entry point imported (its exports compared with the sources'), type-checked, and the
// `loop` bin run.
//
// Needs the packages built (`pnpm build`) and the npm registry, so it runs only with
// LOOP_PACK_TEST=1: `pnpm build && LOOP_PACK_TEST=1 npx vitest run --config vitest.workspace.ts --project cli
// test/pack.test.ts`
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ENABLED = process.env['LOOP_PACK_TEST'] === '1';
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = fileURLToPath(new URL('../node_modules/.bin/', import.meta.url));
const TSC = createRequire(join(REPO, 'package.json')).resolve('typescript/bin/tsc');
const PNPM = ['-y', 'pnpm@12.4.2'];

/** The public packages: folder under packages/ and name. */
const PACKAGES = [
  'core',
  'rollback-git',
  'rollback-snapshot',
  'auto-iterate',
  'evaluators',
  'autoresearch',
  'autotune',
  'collie',
  'workers-bullmq',
  'mcp',
  'testing',
  'cli',
] as const;
const pkgJson = (dir: string) =>
  JSON.parse(readFileSync(join(REPO, 'packages', dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    exports: Record<string, unknown>;
  };

let tmp: string;
let packs: string;
let project: string;
/** Tarball path per package folder. */
const tarballs = new Map<string, string>();

const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' },
  });

describe.skipIf(!ENABLED)('packed tarballs (LOOP_PACK_TEST=1, after pnpm build)', () => {
  beforeAll(() => {
    const unbuilt = PACKAGES.filter((p) => !existsSync(join(REPO, 'packages', p, 'dist', 'index.js')));
    if (unbuilt.length > 0) throw new Error(`not built: ${unbuilt.join(', ')}; run "pnpm build" first`);
    tmp = mkdtempSync(join(tmpdir(), 'loop-pack-'));
    packs = join(tmp, 'packs');
    project = join(tmp, 'project');
    // LOOP_PACK_PACKAGES: pack from another packages/ folder of a pnpm workspace (e.g. a copy with proposed manifests).
    const from = process.env['LOOP_PACK_PACKAGES'] ?? join(REPO, 'packages');
    for (const p of PACKAGES) {
      run('npx', [...PNPM, 'pack', '--pack-destination', packs], join(from, p));
    }
    const packed = readdirSync(packs);
    for (const p of PACKAGES) {
      const file = `loop-${p}-${pkgJson(p).version}.tgz`;
      if (packed.includes(file)) tarballs.set(p, join(packs, file));
    }
  }, 300_000);

  afterAll(() => {
    if (tmp && !process.env['LOOP_PACK_KEEP']) rmSync(tmp, { recursive: true, force: true });
  });

  it(
    'packs every public package: dist and README, no sources, no source ' + 'condition, workspace versions resolved',
    () => {
      expect([...tarballs.keys()].sort()).toEqual([...PACKAGES].sort());
      for (const [p, tgz] of tarballs) {
        const files = run('tar', ['-tzf', tgz], tmp).split('\n').filter(Boolean);
        expect(files, p).toContain('package/dist/index.js');
        expect(files, p).toContain('package/dist/index.d.ts');
        expect(files, p).toContain('package/README.md');
        expect(
          files.filter((f) => f.startsWith('package/src/')),
          p,
        ).toEqual([]);
        const manifest = run('tar', ['-xzOf', tgz, 'package/package.json'], tmp);
        const conditions = new Set<string>();
        const walk = (node: unknown): void => {
          if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) (conditions.add(k), walk(v));
        };
        walk((JSON.parse(manifest) as { exports?: unknown }).exports);
        expect(
          conditions.has('source'),
          `${p}: the "source" export condition points at src/, which is not packed ` +
            `(add publishConfig.exports without it)`,
        ).toBe(false);
        expect(manifest, p).not.toContain('workspace:');
      }
    },
  );

  it.each(PACKAGES)('publint --strict passes for @loop/%s', (p) => {
    const out = run(join(BIN, 'publint'), ['run', tarballs.get(p)!, '--strict'], tmp);
    expect(out).toContain('All good!');
  });

  it.each(PACKAGES)('@arethetypeswrong/cli (esm-only profile) passes for @loop/%s', (p) => {
    // ESM-only packages: node10 and require-from-CJS resolutions are out of scope.
    const out = run(join(BIN, 'attw'), [tarballs.get(p)!, '--profile', 'esm-only', '--format', 'ascii'], tmp);
    expect(out).toContain('node16 (from ESM): 🟢');
  });

  it(
    'installs the tarballs into a fresh npm project, imports every entry ' +
      'point, type-checks them, and runs the loop bin',
    async () => {
      // All tarballs at once, so @loop/cli's "@loop/core": "0.1.0" resolves to the packed one.
      const deps = Object.fromEntries(PACKAGES.map((p) => [`@loop/${p}`, `file:${tarballs.get(p)!}`]));
      run('mkdir', ['-p', project], tmp);
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify(
          {
            name: 'loop-pack-smoke',
            private: true,
            type: 'module',
            dependencies: deps,
            devDependencies: { '@types/node': '20.19.43' },
          },
          null,
          2,
        ),
      );
      run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], project);

      // Every entry point of every package, imported by Node from node_modules; its exports are the sources'.
      const lines: string[] = [];
      const typeLines: string[] = [];
      for (const p of PACKAGES) {
        const name = pkgJson(p).name;
        for (const key of Object.keys(pkgJson(p).exports)) {
          const spec = key === '.' ? name : `${name}/${key.slice(2)}`;
          const id = `m${lines.length}`;
          if (spec.endsWith('.json')) {
            lines.push(`import ${id} from '${spec}' with { type: 'json' }; out['${spec}'] = Object.keys(${id});`);
            typeLines.push(`export * as t${typeLines.length} from '${name}';`);
          } else {
            lines.push(`import * as ${id} from '${spec}'; out['${spec}'] = Object.keys(${id}).sort();`);
            typeLines.push(`export * as t${typeLines.length} from '${spec}';`);
          }
        }
      }
      writeFileSync(
        join(project, 'imports.mjs'),
        `const out = {};\n${lines.join('\n')}\nconsole.log(JSON.stringify(out));\n`,
      );
      const imported = JSON.parse(run(process.execPath, ['imports.mjs'], project)) as Record<string, string[]>;
      for (const p of PACKAGES) {
        const name = pkgJson(p).name;
        const source = (await import(/* @vite-ignore */ join(REPO, 'packages', p, 'src', 'index.ts'))) as Record<
          string,
          unknown
        >;
        expect(imported[name], name).toEqual(Object.keys(source).sort());
      }
      expect(imported['@loop/cli/schema.json']).toContain('$schema');

      // The declarations, as a TypeScript user resolves them (node16 ESM), with full lib checking.
      writeFileSync(join(project, 'types.ts'), `${typeLines.join('\n')}\n`);
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            module: 'node16',
            moduleResolution: 'node16',
            target: 'es2022',
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: ['node'],
          },
          files: ['types.ts'],
        }),
      );
      run(process.execPath, [TSC, '-p', 'tsconfig.json'], project);

      // The bin.
      expect(run(join(project, 'node_modules', '.bin', 'loop'), ['--version'], project).trim()).toBe('0.1.0');
      run(join(project, 'node_modules', '.bin', 'loop'), ['init'], project);
      expect(readFileSync(join(project, 'loop.config.yaml'), 'utf8')).toContain(
        'yaml-language-server: $schema=./node_modules/@loop/cli/schema/loop-config.schema.json',
      );
      expect(existsSync(join(project, 'node_modules', '@loop', 'cli', 'schema', 'loop-config.schema.json'))).toBe(true);
      // A TypeScript config importing defineConfig from the installed package, loaded by the installed jiti.
      writeFileSync(
        join(project, 'loop.config.ts'),
        `import { defineConfig } from '@loop/cli';\nconst minutes = (n: number): ` +
          `number => n * 60;\nexport default defineConfig({ targetFiles: ` +
          `['a.json'], runCommand: 'true', metricName: 'm', timeBudgetS: ` +
          `minutes(1), proposer: { type: 'agent', command: 'x', goal: 'y' } });\n`,
      );
      const status = run(
        process.execPath,
        [
          '-e',
          "import('@loop/cli').then(async (m) => console.log(JSON.stringify((await " +
            'm.loadConfig(process.argv[1])).config)))',
          join(project, 'loop.config.ts'),
        ],
        project,
      );
      expect(JSON.parse(status)).toMatchObject({ timeBudgetS: 60, metricName: 'm' });
    },
    300_000,
  );
});
