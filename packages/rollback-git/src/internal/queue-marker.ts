import nodeFs, { type FSWatcher } from 'node:fs';
import { join } from 'node:path';

/**
 * The change journal's marker (issue 31): a file written and removed in `<gitdir>/loop-watch/`, whose
 * event arriving means the events queued before it were delivered (the kernel keeps their order).
 */
export class QueueMarker {
  private waiting: { readonly name: string; readonly resolve: (seen: boolean) => void } | undefined;

  private constructor(
    readonly dir: string,
    private readonly watcher: FSWatcher,
  ) {}

  /** Makes `<gitdir>/loop-watch` and watches it; `undefined` when that fails. */
  static open(gitdir: string, onError: () => void): QueueMarker | undefined {
    const dir = join(gitdir, 'loop-watch');
    try {
      nodeFs.mkdirSync(dir, { recursive: true });
      let marker: QueueMarker | undefined;
      const watcher = nodeFs.watch(dir, { persistent: false }, (_type, name) => marker?.seen(String(name)));
      watcher.on('error', onError);
      marker = new QueueMarker(dir, watcher);
      return marker;
    } catch {
      return undefined;
    }
  }

  private seen(name: string): void {
    const waiting = this.waiting;
    if (waiting !== undefined && name === waiting.name) {
      this.waiting = undefined;
      waiting.resolve(true);
    }
  }

  /** Writes and removes the marker file `name`; true when its event arrives within `timeoutMs`. */
  sync(name: string, timeoutMs: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        if (this.waiting?.name === name) this.waiting = undefined;
        resolve(false);
      }, timeoutMs);
      this.waiting = {
        name,
        resolve: (seen) => {
          clearTimeout(timer);
          resolve(seen);
        },
      };
      try {
        const path = join(this.dir, name);
        nodeFs.writeFileSync(path, '');
        nodeFs.unlinkSync(path);
      } catch {
        this.waiting = undefined;
        clearTimeout(timer);
        resolve(false);
      }
    });
  }

  /** Closes the watch and removes the directory when empty (another process's marker may be there). */
  close(): void {
    this.watcher.close();
    try {
      nodeFs.rmdirSync(this.dir);
    } catch {
      // not empty, or gone
    }
  }
}
