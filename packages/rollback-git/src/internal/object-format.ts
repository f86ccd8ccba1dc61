import { createHash } from 'node:crypto';
import type { TreeEntry } from 'isomorphic-git';

/** The kinds of git object. */
export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/** The oid of the empty tree (git knows it without storing it). */
export const EMPTY_TREE_OID = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * An object as git stores it before compression: `<type> <byte length>\0<bytes>`.
 */
export function wrapObject(type: ObjectType, bytes: Uint8Array): Buffer {
  const header = Buffer.from(`${type} ${bytes.length}\0`, 'latin1');
  const out = Buffer.allocUnsafe(header.length + bytes.length);
  header.copy(out, 0);
  out.set(bytes, header.length);
  return out;
}

/** The SHA-1 (40 lowercase hex) of `bytes`. */
export function sha1Hex(bytes: Uint8Array): string {
  return createHash('sha1').update(bytes).digest('hex');
}

/** The oid git gives an object of `type` holding `bytes` (`git hash-object -t <type>`). */
export function hashObject(type: ObjectType, bytes: Uint8Array): string {
  return sha1Hex(wrapObject(type, bytes));
}

/**
 * Splits a wrapped object (see {@link wrapObject}) into its type and bytes.
 *
 * @returns `undefined` when the header is malformed or its length does not match the bytes.
 */
export function unwrapObject(wrapped: Buffer): { type: string; bytes: Buffer } | undefined {
  const space = wrapped.indexOf(0x20);
  const nul = wrapped.indexOf(0);
  if (space <= 0 || nul <= space) return undefined;
  const length = Number(wrapped.toString('latin1', space + 1, nul));
  if (!Number.isInteger(length) || length !== wrapped.length - nul - 1) return undefined;
  return { type: wrapped.toString('latin1', 0, space), bytes: wrapped.subarray(nul + 1) };
}

const MODES: Readonly<Record<string, { readonly mode: string; readonly type: TreeEntry['type'] }>> = {
  '40000': { mode: '040000', type: 'tree' },
  '040000': { mode: '040000', type: 'tree' },
  '100644': { mode: '100644', type: 'blob' },
  '100755': { mode: '100755', type: 'blob' },
  '120000': { mode: '120000', type: 'blob' },
  '160000': { mode: '160000', type: 'commit' },
};

const HFS_IGNORABLE = /[\u200C-\u200F\u202A-\u202E\u206A-\u206F\uFEFF]/g;
const PLAIN =
  /^[^\\/:\0\u200C-\u200F\u202A-\u202E\u206A-\u206F\uFEFF]*[^. \\/:\0\u200C-\u200F\u202A-\u202E\u206A-\u206F\uFEFF]$/;

/**
 * Whether a tree entry name is one isomorphic-git accepts (its `assertSafeEntryPath`, which
 * mirrors git's `verify_path`): not empty, no `/`, `\` or NUL, not `.` or `..` or any name of
 * dots and spaces only, and not `.git` in any spelling Windows or macOS alias to it (case, trailing
 * dots and spaces, an NTFS stream after `:`, the short name `git~1`, HFS+ ignorable characters).
 */
export function isSafeEntryName(name: string): boolean {
  if (PLAIN.test(name) && !/^\.?git/i.test(name)) return true; // the common case, without allocating
  if (name === '' || name.includes('/') || name.includes('\\') || name.includes('\0')) return false;
  const hfsClean = name.replace(HFS_IGNORABLE, '');
  const ntfsClean = hfsClean.split(':')[0] ?? '';
  const normalized = ntfsClean.toLowerCase().replace(/[. ]+$/, '');
  if (normalized === '' && ntfsClean !== '') return false;
  return normalized !== '.git' && !/^\.?git~[1-9]$/.test(normalized);
}

/**
 * Parses a tree object's bytes into entries (mode as isomorphic-git spells it: `040000` for a tree),
 * sorted by name as isomorphic-git's `readTree` returns them.
 *
 * @returns `undefined` when an entry is malformed, has a mode git does not write, or a name that
 *   isomorphic-git refuses (see {@link isSafeEntryName}): the caller then asks isomorphic-git, which
 *   refuses such trees with its own error.
 */
export function parseTree(bytes: Uint8Array): TreeEntry[] | undefined {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const entries: TreeEntry[] = [];
  let sorted = true;
  let previous = '';
  for (let cursor = 0; cursor < buffer.length;) {
    const space = buffer.indexOf(0x20, cursor);
    const nul = space < 0 ? -1 : buffer.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > buffer.length) return undefined;
    const kind = MODES[buffer.toString('latin1', cursor, space)];
    const path = buffer.toString('utf8', space + 1, nul);
    if (kind === undefined || !isSafeEntryName(path)) return undefined;
    entries.push({ mode: kind.mode, path, oid: buffer.toString('hex', nul + 1, nul + 21), type: kind.type });
    if (sorted && entries.length > 1 && compareNames(previous, path) > 0) sorted = false;
    previous = path;
    cursor = nul + 21;
  }
  if (!sorted) entries.sort((a, b) => compareNames(a.path, b.path));
  return entries;
}

const ASCII = /^[\x00-\x7f]*$/;

/** Compares two names by their UTF-8 bytes (git's order). */
export function compareNames(a: string, b: string): number {
  if (ASCII.test(a) && ASCII.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** One entry to encode in a tree: a name, a mode (`100644`, `040000`, ... or the number) and an oid. */
export interface TreeEntryInput {
  /** The entry name: one path component. */
  readonly path: string;
  /** `100644`, `100755`, `120000`, `040000` (or `40000`), `160000`, as a string or a number. */
  readonly mode: string | number;
  /** The 40-hex oid of the blob, tree or submodule commit. */
  readonly oid: string;
}

const OID = /^[0-9a-f]{40}$/;

/**
 * Encodes a tree object the way git writes it: entries sorted by name bytes, a tree's name
 * compared as if it ended in `/` (so `a.b` < `a/` < `a0`), each `<mode without leading 0>
 * <name>\0<20-byte oid>`.
 *
 * @throws {Error} for a mode git does not write, an oid that is not 40 lowercase hex, a name that
 *   isomorphic-git refuses (see {@link isSafeEntryName}) or a duplicate name.
 */
export function encodeTree(entries: readonly TreeEntryInput[]): Buffer {
  const rows = entries.map((entry) => {
    const mode = typeof entry.mode === 'number' ? entry.mode.toString(8) : entry.mode;
    const kind = MODES[mode];
    if (kind === undefined) throw new Error(`tree entry ${entry.path}: mode ${mode} is not one git writes`);
    if (!OID.test(entry.oid)) throw new Error(`tree entry ${entry.path}: oid ${entry.oid} is not 40 hex`);
    if (!isSafeEntryName(entry.path)) throw new Error(`tree entry name ${JSON.stringify(entry.path)} is not allowed`);
    const name = Buffer.from(entry.path, 'utf8');
    const key = kind.type === 'tree' ? Buffer.concat([name, Buffer.from('/')]) : name;
    return { key, name, mode: kind.mode === '040000' ? '40000' : kind.mode, oid: entry.oid };
  });
  rows.sort((a, b) => Buffer.compare(a.key, b.key));
  const parts: Buffer[] = [];
  for (let i = 0; i < rows.length; i += 1) {
    const row = rows[i]!;
    if (i > 0 && rows[i - 1]!.name.equals(row.name))
      throw new Error(`tree entry name ${row.name.toString('utf8')} appears twice`);
    parts.push(Buffer.from(`${row.mode} `, 'latin1'), row.name, Buffer.from([0]), Buffer.from(row.oid, 'hex'));
  }
  return Buffer.concat(parts);
}

/** An author or committer line's fields. */
export interface SignatureFields {
  /** The name. */
  readonly name: string;
  /** The e-mail address (without the angle brackets). */
  readonly email: string;
  /** Seconds since the epoch. */
  readonly timestamp: number;
  /**
   * Minutes as isomorphic-git takes them (the sign of `Date#getTimezoneOffset`: 0 is UTC `+0000`,
   * 60 is `-0100`, -120 is `+0200`; -0 is `-0000`).
   */
  readonly timezoneOffset: number;
}

/** What a commit object holds (a commit without a signature). */
export interface CommitFields {
  /** The tree oid. */
  readonly tree: string;
  /** The parent oids, in order. */
  readonly parent: readonly string[];
  /** The author. */
  readonly author: SignatureFields;
  /** The committer. */
  readonly committer: SignatureFields;
  /** The message; normalised as git and isomorphic-git store it (no CR, no leading newlines, one final newline). */
  readonly message: string;
}

/** The message as isomorphic-git stores it: CRs removed, no leading newlines, exactly one final newline. */
export function normalizeMessage(message: string): string {
  return `${message.replace(/\r/g, '').replace(/^\n+/, '').replace(/\n+$/, '')}\n`;
}

function formatOffset(minutes: number): string {
  const negated = minutes === 0 ? minutes : -minutes;
  const negative = Math.sign(negated) === -1 || Object.is(negated, -0);
  const abs = Math.abs(minutes);
  const hours = Math.floor(abs / 60);
  return `${negative ? '-' : '+'}${String(hours).padStart(2, '0')}${String(abs - hours * 60).padStart(2, '0')}`;
}

const signatureLine = (s: SignatureFields): string =>
  `${s.name} <${s.email}> ${s.timestamp} ${formatOffset(s.timezoneOffset)}`;

/**
 * Encodes a commit object byte for byte as isomorphic-git's `writeCommit` does (and as the git CLI
 * does for the same fields): `tree`, `parent` lines, `author`, `committer`, a blank line, the
 * normalised message (see {@link normalizeMessage}).
 */
export function encodeCommit(commit: CommitFields): Buffer {
  let text = `tree ${commit.tree}\n`;
  for (const parent of commit.parent) text += `parent ${parent}\n`;
  text +=
    `author ${signatureLine(commit.author)}\ncommitter ` +
    `${signatureLine(commit.committer)}\n\n` +
    `${normalizeMessage(commit.message)}`;
  return Buffer.from(text, 'utf8');
}

/** The parts of a commit rollback-git reads. */
export interface ParsedCommit {
  /** The tree oid (the first header). */
  readonly tree: string;
  /** The parent oids (the `parent` headers right after `tree`). */
  readonly parent: readonly string[];
  /** The message, normalised as isomorphic-git's `readCommit` returns it. */
  readonly message: string;
}

/**
 * Parses the tree, parents and message of a commit object the way git reads them (the tree is the
 * first header, the parents the `parent` lines right after it).
 *
 * @returns `undefined` when the first header is not a valid `tree` line.
 */
export function parseCommit(bytes: Uint8Array): ParsedCommit | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  const end = text.indexOf('\n\n');
  const headers = (end < 0 ? text : text.slice(0, end)).split('\n');
  const tree = /^tree ([0-9a-f]{40})$/.exec(headers[0] ?? '')?.[1];
  if (tree === undefined) return undefined;
  const parent: string[] = [];
  for (let i = 1; i < headers.length && headers[i]!.startsWith('parent '); i += 1) parent.push(headers[i]!.slice(7));
  return { tree, parent, message: normalizeMessage(end < 0 ? '' : text.slice(end + 2)) };
}
