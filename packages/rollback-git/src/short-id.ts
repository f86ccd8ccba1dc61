/**
 * The abbreviated commit id results.tsv stores: the first 7 hex characters of `oid`.
 *
 * @example
 * shortId('3f2a9c1d0e...') // '3f2a9c1'
 */
export function shortId(oid: string): string {
  return oid.slice(0, 7);
}
