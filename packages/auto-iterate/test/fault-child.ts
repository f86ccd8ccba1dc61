// The child process of the auto-iterate fault-injection test (fault-kill-resume.test.ts). Before
// auto-iterate is loaded it wraps node:fs.promises so that every write call made through it (the
// git rollback's: isomorphic-git and rollback-git look the methods up at call time) is numbered;
// at write number <at> the process SIGKILLs itself, the write torn first (half of its bytes land).
//   node fault-child.mjs count <dir>        prints {"writes": n} after an uninterrupted run
//   node fault-child.mjs kill <dir> <at>    dies at write <at>
//   node fault-child.mjs resume <dir>...    resumes each (a fresh process), prints the outcomes
import nodeFs from 'node:fs';
import { join } from 'node:path';

const [command, ...rest] = process.argv.slice(2);
const at = command === 'kill' ? Number(rest[1]) : 0;
let writes = 0;
const promises = nodeFs.promises as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
const half = (data: unknown): Uint8Array => {
  const bytes = typeof data === 'string' ? Buffer.from(data) : (data as Uint8Array);
  return bytes.subarray(0, Math.floor(bytes.byteLength / 2));
};
const hit = (tear?: () => void): void => {
  writes += 1;
  if (writes !== at) return;
  try {
    tear?.();
  } catch {
    // the real call would fail the same way
  }
  process.kill(process.pid, 'SIGKILL');
};
if (command !== 'resume') {
  for (const name of ['rename', 'unlink', 'mkdir', 'rmdir', 'rm', 'symlink', 'chmod']) {
    const original = promises[name]!.bind(nodeFs.promises);
    promises[name] = async (...args: unknown[]) => {
      hit();
      return original(...args);
    };
  }
  const writeFile = promises.writeFile!.bind(nodeFs.promises);
  promises.writeFile = async (path: unknown, data: unknown, options?: unknown) => {
    hit(() => nodeFs.writeFileSync(path as string, half(data)));
    return writeFile(path, data, options);
  };
  const open = promises.open!.bind(nodeFs.promises);
  promises.open = async (path: unknown, flags?: unknown, mode?: unknown) => {
    const writing = /[wa+]/.test(String(flags ?? 'r'));
    if (writing) hit(() => nodeFs.closeSync(nodeFs.openSync(path as string, flags as string, mode as number)));
    const handle = (await open(path, flags, mode)) as nodeFs.promises.FileHandle;
    if (!writing) return handle;
    const handleWrite = handle.writeFile.bind(handle);
    handle.writeFile = async (data: Parameters<typeof handle.writeFile>[0]) => {
      hit(() => nodeFs.writeSync(handle.fd, half(data)));
      return handleWrite(data);
    };
    return handle;
  };
}

const { createFunctionProposer } = await import('@loop/core');
const { createAutoIterate } = await import('../src/index.js');

/**
 * x per iteration: 1 improves (keep), 2 worsens (discard; its evaluation also saves notes.txt, a
 * file of the user's created while the discarded iteration runs), 3 improves again (keep).
 */
const XS = [2, 9, 3];
const run = (dir: string, resume: boolean) =>
  createAutoIterate({
    dir,
    tag: 'fault',
    files: { targetFiles: ['config.json'], readOnlyFiles: ['eval.mjs'] },
    run: { command: `${JSON.stringify(process.execPath)} eval.mjs`, timeBudgetS: 20, killTimeoutS: 30 },
    score: { metricName: 'score', direction: 'minimize' },
    stop: { maxIterations: XS.length },
    recovery: { resume },
    proposer: createFunctionProposer('scripted', ({ iteration }) => {
      const x = XS[iteration - 1]!;
      nodeFs.writeFileSync(join(dir, 'config.json'), JSON.stringify({ x }));
      return { description: `x -> ${x}` };
    }),
  }).run();

if (command === 'count' || command === 'kill') {
  await run(rest[0]!, false);
  process.stdout.write(JSON.stringify({ writes }));
} else if (command === 'resume') {
  const outcomes = [];
  for (const dir of rest) {
    let line = '';
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      line += String(chunk);
      return true;
    }) as typeof process.stderr.write;
    try {
      await run(dir, true);
      outcomes.push({ dir, ok: true, repaired: line.trim() });
    } catch (error) {
      outcomes.push({ dir, ok: false, error: String((error as Error).message ?? error), repaired: line.trim() });
    } finally {
      process.stderr.write = write;
    }
  }
  process.stdout.write(JSON.stringify(outcomes));
}
