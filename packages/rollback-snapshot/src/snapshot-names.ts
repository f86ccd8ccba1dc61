/**
 * @loop/rollback-snapshot/snapshot-names: seed 002's snapshot names (`000-baseline-<UTC>`,
 * `<NNN>-pre-<slug>-<safe-F>-<UTC>`, `<NNN>-kept-<slug>-<UTC>`), for tools that read or write a run's
 * `snapshots/` folder next to the rollback (autoresearch's rows name the kept snapshot).
 *
 * @example
 * import { keptDirName, KEPT_DIR_PATTERN } from '@loop/rollback-snapshot/snapshot-names';
 *
 * keptDirName(3, 'early-return', Date.UTC(2026, 0, 2)); // '003-kept-early-return-20260102T000000Z'
 *
 * @packageDocumentation
 * @module @loop/rollback-snapshot/snapshot-names
 */
/** Matches a baseline snapshot directory name, `000-baseline-<UTC>` (seed 002 setup step 5). */
export const BASELINE_DIR_PATTERN = /^000-baseline-\d{8}T\d{6}Z$/;

/** Matches a pre-edit copy's file name, `<NNN>-pre-<slug>-<safe-F>-<UTC>`; group 1 is the iteration. */
export const PRE_EDIT_FILE_PATTERN = /^(\d{3,})-pre-.+-\d{8}T\d{6}Z(?:-\d+)?$/;

/** Matches a kept-state snapshot directory name, `<NNN>-kept-<slug>-<UTC>`; group 1 is the iteration. */
export const KEPT_DIR_PATTERN = /^(\d{3,})-kept-[a-z0-9-]+-\d{8}T\d{6}Z(?:-\d+)?$/;

/**
 * The seed's UTC stamp, `date -u +%Y%m%dT%H%M%SZ`, of `ms` (milliseconds since the epoch).
 *
 * @example utcStamp(Date.UTC(2026, 10, 30, 4, 5, 6)) // '20261130T040506Z'
 */
export function utcStamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/**
 * The seed's `<short-kebab-of-the-idea>`: lower-case ASCII letters and digits joined by single
 * dashes, at most `max` characters (default 40), `edit` when nothing is left.
 */
export function slugify(text: string, max = 40): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/, '');
  return slug || 'edit';
}

/**
 * The seed's `<safe-F>`: a relative path made into one file name. `/` becomes `__` and any other
 * character outside `[A-Za-z0-9._-]` becomes `_` (`src/a b.ts` → `src__a_b.ts`).
 */
export function safeFileName(relativePath: string): string {
  return relativePath
    .split('/')
    .map((part) => part.replace(/[^A-Za-z0-9._-]/g, '_'))
    .join('__');
}

/** The iteration number padded as the seed's `printf '%03d'`. */
export function pad3(n: number): string {
  return String(n).padStart(3, '0');
}

/** `000-baseline-<UTC>`: the baseline snapshot directory (seed 002 setup step 5). */
export function baselineDirName(ms: number): string {
  return `000-baseline-${utcStamp(ms)}`;
}

/** `<NNN>-pre-<slug>-<safe-F>-<UTC>`: one file's pre-edit copy (seed 002 loop step 3). */
export function preEditFileName(iteration: number, slug: string, relativePath: string, ms: number): string {
  return `${pad3(iteration)}-pre-${slug}-${safeFileName(relativePath)}-${utcStamp(ms)}`;
}

/** `<NNN>-kept-<slug>-<UTC>`: the directory holding the files a kept iteration changed. */
export function keptDirName(iteration: number, slug: string, ms: number): string {
  return `${pad3(iteration)}-kept-${slug}-${utcStamp(ms)}`;
}
