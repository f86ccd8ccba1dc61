import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { collieSchemaText, schemaText } from '../scripts/write-schema.js';

describe('JSON Schema', () => {
  it(
    'schema/loop-config.schema.json is up to date with the zod schema ' +
      '(regenerate: pnpm --filter @loop/cli schema)',
    () => {
      const checkedIn = readFileSync(new URL('../schema/loop-config.schema.json', import.meta.url), 'utf8');
      expect(checkedIn).toBe(schemaText());
    },
  );

  it('the schema lists the proposer forms and the allowed directions for editors', () => {
    const schema = JSON.parse(schemaText()) as {
      properties: Record<string, { enum?: string[]; oneOf?: unknown[] }>;
      required: string[];
    };
    expect(schema.properties.direction!.enum).toEqual(['lower', 'higher']);
    expect(schema.properties.proposer!.oneOf).toHaveLength(3);
    // targetFiles, runCommand and metricName are required only without a target (a built-in evaluator brings them):
    // checked by the zod schema.
    expect(schema.required).toEqual(['proposer']);
    expect(
      (schema.properties.target as { properties?: Record<string, { enum?: string[] }> }).properties!.type!.enum,
    ).toEqual(['skill', 'skill-full', 'memory', 'code']);
  });

  it(
    'schema/collie-config.schema.json is up to date with the collie zod ' +
      'schema (regenerate: pnpm --filter @loop/cli schema)',
    () => {
      const checkedIn = readFileSync(new URL('../schema/collie-config.schema.json', import.meta.url), 'utf8');
      expect(checkedIn).toBe(collieSchemaText());
    },
  );

  it('the collie schema requires projectId, task and agent, and lists the flow types for editors', () => {
    const schema = JSON.parse(collieSchemaText()) as {
      properties: Record<string, { properties?: Record<string, { enum?: string[] }> }>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(schema.required).toEqual(expect.arrayContaining(['projectId', 'task', 'agent']));
    expect(schema.properties.flow!.properties!.type!.enum).toEqual(['pipeline', 'agent']);
    expect(schema.additionalProperties).toBe(false);
  });
});
