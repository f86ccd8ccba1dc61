import { open, type FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

/** What {@link followLogLines} returns. */
export interface LogFollower {
  /** Reads what is left, hands over a last unterminated line, and stops. */
  stop(): Promise<void>;
}

/** Lines longer than this are cut before they are handed over (a runaway line must not grow memory). */
export const MAX_FOLLOWED_LINE = 4096;

/**
 * Follows a log file as a running command writes it, handing each complete new line to `onLine`
 * as it appears (polled every `intervalMs`; the command writes the file through its own
 * descriptor, so there is no pipe to listen on). Starts at offset 0: call it once the command's
 * log was truncated for this run. A line's text excludes its `\n`; lines are cut at
 * {@link MAX_FOLLOWED_LINE} characters. Errors reading the file (it vanished) end the following
 * quietly; `onLine` must not throw.
 */
export function followLogLines(
  path: string,
  onLine: (line: string) => void,
  options: { intervalMs: number },
): LogFollower {
  let handle: FileHandle | undefined;
  let offset = 0;
  let partial = '';
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let reading: Promise<void> = Promise.resolve();
  const buffer = Buffer.alloc(64 * 1024);
  const decoder = new StringDecoder('utf8'); // a character split across two reads stays whole

  const emit = (line: string) => onLine(line.length > MAX_FOLLOWED_LINE ? line.slice(0, MAX_FOLLOWED_LINE) : line);
  const readNew = async (): Promise<void> => {
    try {
      handle ??= await open(path, 'r');
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        if (bytesRead === 0) return;
        offset += bytesRead;
        const lines = (partial + decoder.write(buffer.subarray(0, bytesRead))).split('\n');
        partial = lines.pop() ?? '';
        if (partial.length > MAX_FOLLOWED_LINE * 4) partial = partial.slice(0, MAX_FOLLOWED_LINE);
        for (const line of lines) emit(line);
      }
    } catch {
      // the log vanished or cannot be read: no more lines from it
    }
  };
  const tick = () => {
    reading = reading.then(readNew).then(() => {
      if (!stopped) timer = setTimeout(tick, options.intervalMs).unref();
    });
  };
  tick();
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await reading;
      await readNew();
      if (partial) emit(partial);
      partial = '';
      await handle?.close().catch(() => undefined);
    },
  };
}
