import { createHash } from 'node:crypto';
import * as zlib from 'node:zlib';

// Git's pack (version 2) and pack index (version 2) formats, for the packs rollback-git writes:
// every entry whole (no deltas), so an entry is a type-and-size header and the zlib stream of the
// content. Reading covers any version-2 index git writes (64-bit offsets included); entries git
// stored as deltas are reported as such and left to isomorphic-git.

/** Pack entry type numbers (git's `OBJ_*`). */
const TYPE_NUMBER = { commit: 1, tree: 2, blob: 3, tag: 4 } as const;
const TYPE_NAME = ['', 'commit', 'tree', 'blob', 'tag', '', 'ofs-delta', 'ref-delta'] as const;

/** Whether a pack entry's type (see {@link readEntryHeader}) is a whole object, not a delta. */
export const isWholeType = (type: string): type is 'commit' | 'tree' | 'blob' | 'tag' => type in TYPE_NUMBER;

/** One whole object as it goes into a pack. */
export interface PackInput {
  /** 40 hex digits: the SHA-1 of the object with its loose header. */
  readonly oid: string;
  /** `blob`, `tree`, `commit` or `tag`. */
  readonly type: keyof typeof TYPE_NUMBER;
  /** The content, without git's `<type> <size>\0` header. */
  readonly bytes: Uint8Array;
}

/** One entry of a pack as an index lists it. */
export interface PackEntry {
  readonly oid: string;
  /** Byte offset of the entry's header in the pack. */
  readonly offset: number;
  /** CRC-32 of the entry's bytes (header and compressed data), as the index stores it. */
  readonly crc: number;
}

/** A pack and its index, ready to be written. */
export interface EncodedPack {
  /** The pack's SHA-1 (its trailer), hex: the `pack-<sha>` file name. */
  readonly name: string;
  readonly pack: Buffer;
  readonly idx: Buffer;
  readonly entries: readonly PackEntry[];
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE), node:zlib's when the runtime has it (Node >= 20.15). */
export function crc32(data: Uint8Array): number {
  const native = (zlib as unknown as { crc32?: (d: Uint8Array) => number }).crc32;
  if (native !== undefined) return native(data) >>> 0;
  let c = 0xffffffff;
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The type-and-size header of a pack entry. */
function entryHeader(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (type << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

/** Parses the entry header at `offset`: git's type name (or a delta kind), content size, header length. */
export function readEntryHeader(
  pack: Uint8Array,
  offset: number,
): { type: (typeof TYPE_NAME)[number]; size: number; length: number } {
  let byte = pack[offset] as number;
  const type = TYPE_NAME[(byte >> 4) & 7] ?? '';
  let size = byte & 0x0f;
  let shift = 16;
  let length = 1;
  while (byte & 0x80) {
    byte = pack[offset + length] as number;
    size += (byte & 0x7f) * shift;
    shift *= 128;
    length += 1;
  }
  return { type, size, length };
}

/**
 * Builds a pack of whole entries from `raw` pre-made entry bytes (header and zlib data, as
 * {@link encodeEntry} or a copied entry gives them) and its version-2 index.
 */
export function assemblePack(
  raw: readonly { readonly oid: string; readonly bytes: Buffer; readonly crc: number }[],
): EncodedPack {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(raw.length, 8);
  const parts: Buffer[] = [header];
  const entries: PackEntry[] = [];
  let offset = 12;
  for (const item of raw) {
    entries.push({ oid: item.oid, offset, crc: item.crc });
    parts.push(item.bytes);
    offset += item.bytes.length;
  }
  const body = Buffer.concat(parts);
  const trailer = createHash('sha1').update(body).digest();
  const pack = Buffer.concat([body, trailer]);
  return { name: trailer.toString('hex'), pack, idx: encodeIndex(entries, trailer), entries };
}

/** A whole object as pack-entry bytes (header and zlib stream of the content) with its CRC-32. */
export function encodeEntry(input: PackInput): { readonly oid: string; readonly bytes: Buffer; readonly crc: number } {
  const bytes = Buffer.concat([
    entryHeader(TYPE_NUMBER[input.type], input.bytes.length),
    zlib.deflateSync(input.bytes),
  ]);
  return { oid: input.oid, bytes, crc: crc32(bytes) };
}

/** Encodes whole objects as a pack and its index (entries in the given order; oids must be distinct). */
export function encodePack(inputs: readonly PackInput[]): EncodedPack {
  return assemblePack(inputs.map(encodeEntry));
}

function encodeIndex(entries: readonly PackEntry[], packSha: Buffer): Buffer {
  const sorted = [...entries].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
  const n = sorted.length;
  const large = sorted.filter((entry) => entry.offset >= 0x80000000);
  const out = Buffer.alloc(8 + 1024 + n * 28 + large.length * 8 + 40);
  out.writeUInt32BE(0xff744f63, 0);
  out.writeUInt32BE(2, 4);
  const fanout = new Uint32Array(256);
  for (const entry of sorted) {
    const first = parseInt(entry.oid.slice(0, 2), 16);
    fanout[first] = (fanout[first] as number) + 1;
  }
  let running = 0;
  for (let i = 0; i < 256; i += 1) {
    running += fanout[i] as number;
    out.writeUInt32BE(running, 8 + i * 4);
  }
  const shaAt = 8 + 1024;
  const crcAt = shaAt + n * 20;
  const offsetAt = crcAt + n * 4;
  const largeAt = offsetAt + n * 4;
  let nextLarge = 0;
  sorted.forEach((entry, i) => {
    out.write(entry.oid, shaAt + i * 20, 'hex');
    out.writeUInt32BE(entry.crc >>> 0, crcAt + i * 4);
    if (entry.offset < 0x80000000) out.writeUInt32BE(entry.offset, offsetAt + i * 4);
    else {
      out.writeUInt32BE((0x80000000 | nextLarge) >>> 0, offsetAt + i * 4);
      out.writeBigUInt64BE(BigInt(entry.offset), largeAt + nextLarge * 8);
      nextLarge += 1;
    }
  });
  packSha.copy(out, largeAt + large.length * 8);
  const body = out.subarray(0, out.length - 20);
  createHash('sha1')
    .update(body)
    .digest()
    .copy(out, out.length - 20);
  return out;
}

/**
 * Parses a version-2 pack index: its entries and the pack's SHA-1. `undefined` for anything else
 * (version 1, a truncated or corrupt file: its trailing SHA-1 is checked), which then stays
 * isomorphic-git's to read.
 */
export function parseIndex(idx: Uint8Array): { entries: PackEntry[]; packSha: string } | undefined {
  const buf = Buffer.from(idx.buffer, idx.byteOffset, idx.byteLength);
  if (buf.length < 8 + 1024 + 40 || buf.readUInt32BE(0) !== 0xff744f63 || buf.readUInt32BE(4) !== 2) return undefined;
  const sum = createHash('sha1')
    .update(buf.subarray(0, buf.length - 20))
    .digest();
  if (!sum.equals(buf.subarray(buf.length - 20))) return undefined;
  const n = buf.readUInt32BE(8 + 255 * 4);
  const shaAt = 8 + 1024;
  const crcAt = shaAt + n * 20;
  const offsetAt = crcAt + n * 4;
  const largeAt = offsetAt + n * 4;
  if (largeAt + 40 > buf.length) return undefined;
  const entries: PackEntry[] = [];
  for (let i = 0; i < n; i += 1) {
    const small = buf.readUInt32BE(offsetAt + i * 4);
    const offset = small & 0x80000000 ? Number(buf.readBigUInt64BE(largeAt + (small & 0x7fffffff) * 8)) : small;
    entries.push({
      oid: buf.toString('hex', shaAt + i * 20, shaAt + i * 20 + 20),
      offset,
      crc: buf.readUInt32BE(crcAt + i * 4),
    });
  }
  return { entries, packSha: buf.toString('hex', buf.length - 40, buf.length - 20) };
}
