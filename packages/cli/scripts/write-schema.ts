/** Writes schema/loop-config.schema.json from the zod schema (run by `pnpm build` and `pnpm schema`). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loopConfigJsonSchema } from '../src/config.js';

/** The checked-in schema file's text. */
export function schemaText(): string {
  return `${JSON.stringify(loopConfigJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = fileURLToPath(new URL('../schema/loop-config.schema.json', import.meta.url));
  writeFileSync(path, schemaText());
  console.log(`wrote ${path}`);
}
