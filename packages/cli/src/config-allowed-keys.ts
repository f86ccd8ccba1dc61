// The fields a config's JSON Schema allows at a path, following the data through unions, for
// "unknown field ...; allowed fields: ..." messages (load-config.ts).

/** The part of a JSON Schema the "allowed fields" message walks. */
export type JsonSchema = {
  properties?: Record<string, JsonSchema>;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
};

/** The keys the JSON Schema allows at `path` (following `data` through unions), for "unknown key" messages. */
export function allowedKeys(schema: JsonSchema, path: readonly PropertyKey[], data: unknown): string[] {
  let node: JsonSchema | undefined = schema;
  let value: unknown = data;
  for (const key of path) {
    if (!node) return [];
    node = pickBranch(node, value);
    node =
      node?.properties?.[String(key)] ??
      (/^\d+$/.test(String(key)) ? node?.items : undefined) ?? // an entry of a list (prune.pruners.0)
      (typeof node?.additionalProperties === 'object' ? node.additionalProperties : undefined);
    value = (value as Record<PropertyKey, unknown> | undefined)?.[key];
  }
  if (!node) return [];
  return Object.keys(pickBranch(node, value)?.properties ?? {});
}

/**
 * The union branch `value` was meant for: the one whose `type` constant it names, else the one
 * sharing the most keys with it (a numeric `{ min, max, integr }` parameter, not the categorical
 * `{ values }` branch listed first), else the first.
 */
function pickBranch(node: JsonSchema, value: unknown): JsonSchema | undefined {
  const branches: JsonSchema[] = node.oneOf ?? node.anyOf ?? [node];
  const type = (value as { type?: unknown } | undefined)?.type;
  const typed =
    type === undefined
      ? undefined
      : branches.find((b) => (b.properties?.type as { const?: unknown } | undefined)?.const === type);
  if (typed) return typed;
  const keys = value !== null && typeof value === 'object' ? Object.keys(value) : [];
  let best = branches[0];
  let bestShared = -1;
  for (const branch of branches) {
    const shared = keys.filter((k) => branch.properties?.[k] !== undefined).length;
    if (shared > bestShared) [best, bestShared] = [branch, shared];
  }
  return best;
}
