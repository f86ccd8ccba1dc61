#!/usr/bin/env node
/**
 * The `loop` executable: runs {@link runCli} on the process's arguments and exits with its code.
 *
 * @packageDocumentation
 */
import { runCli } from './cli.js';

// A reader that stops early (`loop --help | head -1`) closes the pipe: that is the end of the
// output, not a crash (no unhandled EPIPE stack trace).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
});
process.exitCode = code;
