import { isMap, isScalar, type Document } from 'yaml';

type Node = { range?: [number, number, number] | null | undefined } | null | undefined;

/** The key node of `key` in the map `collection`, if it is one. */
function keyNode(collection: unknown, key: PropertyKey): Node {
  if (!isMap(collection)) return undefined;
  return collection.items.find((p) => isScalar(p.key) && p.key.value === key)?.key as Node;
}

/**
 * The offset of the deepest node on `path` that exists: its key's (`prune:` for an issue about the
 * whole `prune` block, not the block's first line). An unknown key points at itself; a
 * missing key at its parent's own key (`harness:` for a missing `harness.command`, where the field
 * would go), or, for a missing top-level field, at the first line of the document's map. Used
 * by `config-error-lines.ts` too.
 */
export function offsetOf(doc: Document, path: readonly PropertyKey[], unknownKey?: string): number | undefined {
  for (let n = path.length; n >= 0; n -= 1) {
    const node = doc.getIn(path.slice(0, n) as unknown[], true) as Node;
    if (node && node.range) {
      if (n === path.length && unknownKey !== undefined) {
        const key = keyNode(node, unknownKey);
        if (key?.range) return key.range[0];
      }
      // The field's own key: a block map or list starts on the line after it.
      if (n > 0) {
        const parent = n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1) as unknown[], true);
        const key = keyNode(parent, path[n - 1]!);
        if (key?.range) return key.range[0];
      }
      // A scalar value: its own line. A missing top-level key: the root map's first line.
      return node.range[0];
    }
  }
  return undefined;
}
