import { existsSync } from 'node:fs';
import { dirname, isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The JSON Schema files `@loop/cli` ships in its `schema/` folder, by config kind. */
export const SHIPPED_SCHEMA_FILES = { loop: 'loop-config.schema.json', collie: 'collie-config.schema.json' } as const;

/** A config kind that has a shipped JSON Schema: a key of {@link SHIPPED_SCHEMA_FILES}. */
export type SchemaKind = keyof typeof SHIPPED_SCHEMA_FILES;

/**
 * The absolute path of the JSON Schema this CLI ships for `kind`: `<package>/schema/<file>`,
 * found from this module (one folder below the package root both as `src/` and as the bundled
 * `dist/`). The path is returned whether or not the file exists.
 */
export function shippedSchemaPath(kind: SchemaKind = 'loop'): string {
  return fileURLToPath(new URL(`../schema/${SHIPPED_SCHEMA_FILES[kind]}`, import.meta.url));
}

/**
 * What a config written to `configPath` puts after `# yaml-language-server: $schema=`: the path
 * of the schema this CLI ships ({@link shippedSchemaPath}) relative to the config's folder
 * (`./...` or `../...`; absolute when no relative path exists, e.g. another drive), which editors
 * resolve against the file, offline. `undefined` when the schema file is not there (then no
 * modeline is written).
 *
 * @param schemaPath the schema file. @default shippedSchemaPath(kind)
 */
export function schemaRefFor(
  configPath: string,
  kind: SchemaKind = 'loop',
  schemaPath = shippedSchemaPath(kind),
): string | undefined {
  if (!existsSync(schemaPath)) return undefined;
  const rel = relative(dirname(configPath), schemaPath);
  if (isAbsolute(rel)) return rel;
  return rel.startsWith('..') ? rel : `./${rel}`;
}

/**
 * The first line of a written YAML config: the yaml-language-server modeline naming `schema`, or nothing when `schema`
 * is undefined.
 */
export function schemaModeline(schema: string | undefined): string {
  return schema === undefined ? '' : `# yaml-language-server: $schema=${schema}\n`;
}
