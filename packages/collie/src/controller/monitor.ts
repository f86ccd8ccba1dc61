import { open } from 'node:fs/promises';

/** A running log monitor. */
export interface LogMonitor {
  /** Stops polling (idempotent). */
  readonly stop: () => void;
  /** The first line that matched a pattern, or null. */
  readonly matched: () => string | null;
}

/**
 * The Stage 2 monitor (seed 000: "Monitor ... subscribe to stdout stream", fallback "read the last
 * lines of raw.log, scan for ISSUE patterns"): every `intervalMs` reads the bytes appended to
 * `path` since the last read and tests each complete line against `patterns`; on the first match
 * it calls `onMatch(line)` once and stops. A missing file is read again next time.
 */
export function monitorLog(options: {
  path: string;
  patterns: readonly RegExp[];
  intervalMs: number;
  onMatch: (line: string) => void;
}): LogMonitor {
  let offset = 0;
  let pending = '';
  let hit: string | null = null;
  let stopped = false;
  let busy = false;
  const poll = async () => {
    if (busy || stopped) return;
    busy = true;
    try {
      const handle = await open(options.path, 'r').catch(() => undefined);
      if (!handle) return;
      try {
        const { size } = await handle.stat();
        if (size < offset) offset = 0; // truncated: start over
        if (size === offset) return;
        const buf = Buffer.alloc(size - offset);
        await handle.read(buf, 0, buf.length, offset);
        offset = size;
        const lines = (pending + buf.toString('utf8')).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          if (options.patterns.some((p) => p.test(line))) {
            hit = line;
            stopped = true;
            clearInterval(timer);
            options.onMatch(line);
            return;
          }
        }
      } finally {
        await handle.close();
      }
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void poll(), options.intervalMs);
  timer.unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    matched: () => hit,
  };
}
