/**
 * The streams and folder the `loop` command works with: its own module so that every command
 * module can take a {@link CliIo} without importing the program that declares them (`cli.ts`).
 */

/** Where the CLI reads and writes: the process's streams by default, fakes in tests. */
export interface CliIo {
  /** Standard output. */
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  /** Standard error. */
  stderr: NodeJS.WritableStream;
  /** The working directory config paths are resolved against. */
  cwd: string;
  /** Use the live display; @default a TTY stdout with a non-zero size, unless `CI` is set (`canShowLiveDisplay`) */
  tty?: boolean;
  /** Standard input (the interactive questions of `loop collie`). @default process.stdin */
  stdin?: NodeJS.ReadableStream;
  /**
   * Whether `loop init` may print the from-a-clone form `npx -y pnpm@12.4.2 --dir <clone> loop run
   * <absolute config>`: unless `false`, it does when this module is in a clone of the loop
   * repository, `<clone>` being that clone's root (`cloneRootOf` in starter-config.ts). @default true
   */
  fromClone?: boolean;
}

/**
 * Runs another `loop` command line (e.g. `['collie', 'run', file]`) with the same {@link CliIo} and
 * returns its exit code: how a command hands over to another one without importing the program.
 */
export type RunCommandLine = (argv: readonly string[]) => Promise<number>;
