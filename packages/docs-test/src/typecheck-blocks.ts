import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { runInGroupToLog } from '@loop/core/process';
import type { CodeBlock } from './extract-blocks.js';
import { tsBlockFile, type BlockRunContext } from './run-block.js';

/** What {@link typecheckBlocks} found. */
export interface TypecheckResult {
  /**
   * One line per type error: `<page>:<markdown line>: error TS<n>: <message>` (or tsc's own line when it is in no
   * block's file).
   */
  errors: string[];
  /** How many block files were checked. */
  checked: number;
}

/**
 * Type-checks the ts blocks as they were saved by `runBlock` (tsx strips types without checking
 * them, so a block can run and still show a user's editor red): one `tsc --noEmit` over those
 * files with a tsconfig in the scratch package that extends the clone's `tsconfig.base.json`
 * (strict, the `source` condition). Blocks whose file was never written (skipped ones) are left out.
 * Each error is mapped from the file's line to the page's (the marker's `prepend` lines discounted).
 *
 * @throws Error when tsc cannot be started at all (no output and no exit code)
 */
export async function typecheckBlocks(blocks: readonly CodeBlock[], ctx: BlockRunContext): Promise<TypecheckResult> {
  const files = new Map<string, CodeBlock>();
  for (const block of blocks) {
    if (block.lang !== 'ts' || block.options?.skip) continue;
    const path = tsBlockFile(block, ctx);
    if (existsSync(path)) files.set(path, block);
  }
  if (files.size === 0) return { errors: [], checked: 0 };
  const scratch = resolve(ctx.root, ctx.scratchPackage);
  const tsconfig = join(scratch, 'tsconfig.docs-test.json');
  const base = relative(scratch, join(ctx.root, 'tsconfig.base.json'));
  await writeFile(
    tsconfig,
    `${JSON.stringify({ extends: base, compilerOptions: { noEmit: true }, files: [...files.keys()] }, null, 2)}\n`,
  );
  const logPath = join(ctx.tmp, 'logs', 'typecheck.log');
  const run = await runInGroupToLog({
    command: `'${join(ctx.root, 'node_modules', '.bin', 'tsc')}' -p '${tsconfig}' --pretty false`,
    cwd: ctx.root,
    env: ctx.env,
    logPath,
    killTimeoutMs: 300_000,
    graceMs: 5_000,
  });
  const output = await readFile(logPath, 'utf8').catch(() => '');
  if (run.exitCode === null && output === '')
    throw new Error(`docs-test: tsc did not run (${run.spawnError?.message ?? run.signal})`);
  const errors: string[] = [];
  for (const line of output.split('\n')) {
    const hit = /^(.+?)\((\d+),\d+\): (error .*)$/.exec(line);
    if (!hit) {
      if (/error TS\d+/.test(line)) errors.push(line.trim());
      continue;
    }
    const path = resolve(ctx.root, hit[1]!);
    const block = files.get(path) ?? files.get(hit[1]!);
    if (!block) {
      errors.push(line.trim());
      continue;
    }
    const prepended = block.options?.prepend ? block.options.prepend.split('\n').length : 0;
    const blockLine = Number(hit[2]) - prepended;
    errors.push(
      blockLine >= 1
        ? `${block.file}:${block.line + blockLine}: ${hit[3]}`
        : `${block.file}:${block.line} (in the marker's prepend): ${hit[3]}`,
    );
  }
  if (run.exitCode !== 0 && errors.length === 0)
    errors.push(`tsc exited ${run.exitCode ?? run.signal}: ${output.trim().split('\n').slice(-10).join('\n')}`);
  return { errors, checked: files.size };
}
