import nodeFs from 'node:fs';

/**
 * File systems whose changes inotify reports (statfs magic numbers): ext2-4, xfs, btrfs, tmpfs, f2fs, zfs, overlay,
 * bcachefs.
 */
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0xf2f52010, 0x2fc12fc1, 0x794c7630, 0xca451a4e,
]);

/** The kernel's inotify queue length (/proc/sys/fs/inotify/max_queued_events), 16384 when unknown. */
export function maxQueuedEvents(): number {
  try {
    const n = Number(nodeFs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    return Number.isFinite(n) && n > 0 ? n : 16384;
  } catch {
    return 16384;
  }
}

/** Why the journal cannot work here at all (then every scan walks the whole tree), or `undefined`. */
export function unsupported(dir: string): string | undefined {
  if (process.platform !== 'linux') return `no inotify on ${process.platform}`;
  try {
    const type = nodeFs.statfsSync(dir).type;
    if (!LOCAL_FILE_SYSTEMS.has(type)) return `file system 0x${type.toString(16)} may not report changes`;
  } catch {
    return 'statfs failed';
  }
  return undefined;
}
