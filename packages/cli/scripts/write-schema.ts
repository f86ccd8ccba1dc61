/**
 * Writes schema/loop-config.schema.json and schema/collie-config.schema.json from the zod schemas (run by `pnpm build`
 * and `pnpm schema`).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { collieConfigJsonSchema } from '../src/collie/config.js';
import { loopConfigJsonSchema } from '../src/config.js';

/** The checked-in loop config schema file's text. */
export function schemaText(): string {
  return `${JSON.stringify(loopConfigJsonSchema(), null, 2)}\n`;
}

/** The checked-in collie config schema file's text. */
export function collieSchemaText(): string {
  return `${JSON.stringify(collieConfigJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [name, text] of [
    ['loop-config.schema.json', schemaText()],
    ['collie-config.schema.json', collieSchemaText()],
  ] as const) {
    const path = fileURLToPath(new URL(`../schema/${name}`, import.meta.url));
    writeFileSync(path, text);
    console.log(`wrote ${path}`);
  }
}
