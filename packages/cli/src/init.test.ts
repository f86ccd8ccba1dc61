import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dateTag } from '@loop/auto-iterate';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import { cloneRootOf, initNextSteps, isFromClone, starterConfig } from './starter-config.js';
import { parseConfigText } from './load-config.js';
import { schemaRefFor } from './schema-ref.js';
import { defaultTag } from './run-tag.js';

async function init(cwd: string, ...args: string[]): Promise<{ code: number; out: string }> {
  return initAs(true, cwd, ...args);
}

async function initAs(fromClone: boolean, cwd: string, ...args: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const sink = { write: (s: string) => (out.push(s), true) } as unknown as NodeJS.WritableStream;
  const code = await runCli(['init', ...args], { stdout: sink, stderr: sink, cwd, tty: false, fromClone });
  return { code, out: out.join('') };
}

describe('loop init', () => {
  it(
    'the from-clone hint is "npx -y pnpm@12.4.2 --dir <clone root> loop run ' +
      '<absolute file>": --dir names the folder holding the root loop script, ' +
      'so the line works pasted in the folder loop init ran in',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'loop-init-'));
      const clone = cloneRootOf(fileURLToPath(import.meta.url))!;
      try {
        const first = await init(cwd);
        expect(first.code).toBe(0);
        expect(first.out).toContain('  loop run    (with @loop/cli installed)');
        const line = first.out.split('\n').find((l) => l.includes('npx -y pnpm@12.4.2'))!;
        expect(line).toBe(
          `  npx -y pnpm@12.4.2 --dir ${clone} loop ` +
            `run ${join(cwd, 'loop.config.yaml')}    (from a clone of the loop ` +
            `repository, in any folder)`,
        );
        // What makes it work from cwd: pnpm --dir runs the root package.json's loop script in the
        // clone, and the config is named by an absolute path that exists.
        const [, dir, config] = /--dir (\S+) loop run (\S+)/.exec(line)!;
        expect(
          (JSON.parse(readFileSync(join(dir!, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts[
            'loop'
          ],
        ).toContain('packages/cli/src/main.ts');
        expect(isAbsolute(config!) && existsSync(config!)).toBe(true);
        const named = await init(cwd, 'other.yaml');
        expect(named.out).toContain('  loop run other.yaml    (with @loop/cli installed)');
        expect(named.out).toContain(
          `  npx -y pnpm@12.4.2 --dir ${clone} loop run ${join(cwd, 'other.yaml')}    (from a clone`,
        );
        expect(readFileSync(join(cwd, 'other.yaml'), 'utf8')).toBe(
          starterConfig('auto-iterate', schemaRefFor(join(cwd, 'other.yaml'))),
        );
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );

  it('the hint shell-quotes a path with spaces or quotes, so the shell reads each as one argument', () => {
    const path = "/tmp/a b/my loop's.yaml";
    const hint = initNextSteps("my loop's.yaml", path, '/src/loop clone');
    const words = /npx -y pnpm@12\.4\.2 --dir (.+) loop run (.+?) {4}\(from a clone/.exec(hint)!;
    const argv = (word: string) => execFileSync('sh', ['-c', `printf '%s\\n' ${word}`], { encoding: 'utf8' });
    expect(argv(words[1]!)).toBe('/src/loop clone\n');
    expect(argv(words[2]!)).toBe(`${path}\n`);
    expect(argv(/ {2}loop run (.+?) {4}\(with/.exec(hint)![1]!)).toBe("my loop's.yaml\n");
  });

  it('an installed loop init prints only "loop run", never the from-clone npx -y pnpm@12.4.2 line', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'loop-init-'));
    try {
      const { code, out } = await initAs(false, cwd);
      expect(code).toBe(0);
      expect(out).toContain('\n  loop run\n');
      expect(out).not.toContain('pnpm');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('a clone is told apart from an installed package by node_modules and the workspace files', () => {
    expect(isFromClone(fileURLToPath(import.meta.url))).toBe(true);
    expect(isFromClone(join(tmpdir(), 'node_modules', '@loop', 'cli', 'dist', 'main.js'))).toBe(false);
    expect(isFromClone(join(tmpdir(), 'somewhere', 'main.js'))).toBe(false);
    const clone = cloneRootOf(fileURLToPath(import.meta.url))!;
    expect(
      existsSync(join(clone, 'pnpm-workspace.yaml')) &&
        existsSync(join(clone, 'packages', 'cli', 'src', 'starter-config.ts')),
    ).toBe(true);
    expect(cloneRootOf(join(clone, 'node_modules', '@loop', 'cli', 'dist', 'main.js'))).toBeUndefined();
  });

  it(
    'the $schema loop init writes resolves against the written file to the ' +
      'JSON Schema this CLI ships, in any folder (starter, --target, collie)',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'loop-init-'));
      const schemaOf = (file: string) => {
        const first = readFileSync(file, 'utf8').split('\n')[0]!;
        const ref = /^# yaml-language-server: \$schema=(\S+)$/.exec(first)?.[1];
        expect(ref, first).toBeDefined();
        return resolve(dirname(file), ref!);
      };
      const shipped = (name: string) => fileURLToPath(new URL(`../schema/${name}`, import.meta.url));
      try {
        mkdirSync(join(cwd, 'deep', 'er'), { recursive: true });
        writeFileSync(join(cwd, 'skill.md'), '# s\n');
        expect((await init(cwd)).code).toBe(0);
        expect((await init(cwd, 'deep/er/loop.yaml')).code).toBe(0);
        expect((await init(cwd, '--preset', 'collie', 'collie.yaml')).code).toBe(0);
        expect((await init(cwd, '--target', 'skill', 'skill.md', '--config', 'deep/t.yaml')).code).toBe(0);
        for (const file of ['loop.config.yaml', 'deep/er/loop.yaml', 'deep/t.yaml']) {
          expect(schemaOf(join(cwd, file))).toBe(shipped('loop-config.schema.json'));
        }
        expect(schemaOf(join(cwd, 'collie.yaml'))).toBe(shipped('collie-config.schema.json'));
        expect(
          (JSON.parse(readFileSync(schemaOf(join(cwd, 'deep/er/loop.yaml')), 'utf8')) as { title: string }).title,
        ).toBe('loop config (preset auto-iterate)');
        // Written as is: the written starter is the pure one with that path, and validates.
        expect(parseConfigText(readFileSync(join(cwd, 'deep/er/loop.yaml'), 'utf8'), 'loop.yaml').preset).toBe(
          'auto-iterate',
        );
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );

  it(
    'without the shipped schema file the written config has no $schema line ' + 'rather than one that points nowhere',
    () => {
      expect(schemaRefFor('/w/loop.config.yaml', 'loop', '/nowhere/loop-config.schema.json')).toBeUndefined();
      expect(starterConfig('auto-iterate', null).startsWith('# loop config, preset auto-iterate')).toBe(true);
      expect(schemaRefFor('/w/a/loop.config.yaml', 'loop', fileURLToPath(import.meta.url))).toBe(
        relative('/w/a', fileURLToPath(import.meta.url)),
      );
      expect(
        schemaRefFor(fileURLToPath(new URL('x.yaml', import.meta.url)), 'loop', fileURLToPath(import.meta.url)),
      ).toBe('./init.test.ts');
    },
  );

  it(
    'loop init over an existing file says it exists and how to overwrite it ' + '(exit 2), not CONFIG_INVALID (root)',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'loop-init-'));
      try {
        writeFileSync(join(cwd, 'loop.config.yaml'), 'mine\n');
        const { code, out } = await init(cwd);
        expect(code).toBe(2);
        expect(out).toBe(
          `error: loop init: ${join(cwd, 'loop.config.yaml')} already exists; pass ` +
            `--force to overwrite it, or name another file (loop init <file>)\n`,
        );
        expect(readFileSync(join(cwd, 'loop.config.yaml'), 'utf8')).toBe('mine\n');
        expect((await init(cwd, '--force')).code).toBe(0);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );

  it('loop init refuses a .ts or .json file (exit 2) and writes nothing: its starter configs are YAML', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'loop-init-'));
    try {
      for (const file of ['loop.config.ts', 'loop.config.json']) {
        const { code, out } = await init(cwd, file);
        expect(code).toBe(2);
        expect(out).toContain(`loop init writes a YAML config: name a .yaml or .yml file (got ${file})`);
        expect(existsSync(join(cwd, file))).toBe(false);
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it(
    "the starter config's tag comment shows the default tag loop run uses " + '(UTC date and time, e.g. mar21-143005)',
    () => {
      const now = Date.UTC(2026, 2, 21, 14, 30, 5);
      expect(dateTag(now)).toBe('mar21');
      expect(defaultTag(now)).toBe('mar21-143005');
      const text = starterConfig();
      expect(text).toContain(
        `# The run branch is auto-iterate/<tag>. Default: the UTC date and time of the run, e.g. ${defaultTag(now)}.`,
      );
      expect(text).not.toMatch(/today's date, e\.g\. mar21\./);
      expect(parseConfigText(text, 'loop.config.yaml').tag).toBeUndefined();
    },
  );
});
