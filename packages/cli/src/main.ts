#!/usr/bin/env node
/**
 * The `loop` executable: runs {@link runCli} on the process's arguments and exits with its code.
 *
 * @packageDocumentation
 */
import { runCli } from './cli.js';

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });
process.exitCode = code;
