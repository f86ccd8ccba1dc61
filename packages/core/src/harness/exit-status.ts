import { constants } from 'node:os';

/**
 * The signal a shell's exit code above 128 reports (`/bin/sh -c` exits with 128 + n when its
 * command was killed by signal n): `signalOfExitCode(139)` is `SIGSEGV`; undefined for 0-128 and
 * codes that name no signal.
 */
export function signalOfExitCode(exitCode: number | null): string | undefined {
  if (exitCode === null || exitCode <= 128) return undefined;
  return Object.entries(constants.signals).find(([, n]) => n === exitCode - 128)?.[0];
}

/**
 * How a run ended, in words: `exited with code 3`, `killed by SIGKILL`, or, for an exit code above
 * 128 that names a signal, `killed by SIGSEGV (exit code 139)`.
 */
export function describeExit(exitCode: number | null, signal: string | null): string {
  if (signal) return `killed by ${signal}`;
  const name = signalOfExitCode(exitCode);
  if (name) return `killed by ${name} (exit code ${exitCode})`;
  return `exited with code ${exitCode}`;
}
