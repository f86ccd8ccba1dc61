// The `loop` CLI (src/main.ts) bundled once with esbuild, the compiler tsx and tsup use (so the
// same code as the published dist): a process then starts in ~0.5 s instead of ~2 s under tsx.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
// esbuild as tsx (a root devDependency) resolves it; only build() is used.
const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx'))('esbuild') as {
  build: (options: Record<string, unknown>) => Promise<unknown>;
};

/** Bundles src/main.ts into `dir`/loop.mjs (run it with `node`); returns the bundle's path. */
export async function bundleCli(dir: string): Promise<string> {
  const BUNDLE = join(dir, 'loop.mjs');
  await esbuild.build({
    entryPoints: [MAIN],
    outfile: BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    logLevel: 'error',
    // CommonJS dependencies (proper-lockfile, write-file-atomic, ...) use require and __filename.
    banner: {
      js: [
        "import { createRequire as __loopCreateRequire } from 'node:module';",
        "import { fileURLToPath as __loopFileURLToPath } from 'node:url';",
        'const require = __loopCreateRequire(import.meta.url);',
        'const __filename = __loopFileURLToPath(import.meta.url);',
        "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
      ].join('\n'),
    },
  });
  return BUNDLE;
}
