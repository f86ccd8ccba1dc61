import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schemaText } from '../scripts/write-schema.js';

describe('JSON Schema', () => {
  it('schema/loop-config.schema.json is up to date with the zod schema (regenerate: pnpm --filter @loop/cli schema)', () => {
    const checkedIn = readFileSync(new URL('../schema/loop-config.schema.json', import.meta.url), 'utf8');
    expect(checkedIn).toBe(schemaText());
  });

  it('the schema lists the proposer forms and the allowed directions for editors', () => {
    const schema = JSON.parse(schemaText()) as { properties: Record<string, { enum?: string[]; oneOf?: unknown[] }>; required: string[] };
    expect(schema.properties.direction!.enum).toEqual(['lower', 'higher']);
    expect(schema.properties.proposer!.oneOf).toHaveLength(2);
    expect(schema.required).toEqual(expect.arrayContaining(['targetFiles', 'runCommand', 'metricName', 'proposer']));
  });
});
