import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** The presets a `loop` config file can be for. */
export type ConfigPreset = 'auto-iterate' | 'autoresearch' | 'autotune' | 'collie';

/**
 * Which preset a config file is for, without validating it: its `preset` field (`autoresearch`,
 * `autotune`, `auto-iterate`); a collie config (written by `loop init --preset collie` or `loop collie init`)
 * has no preset field and is known by its `projectId` and `task` fields or a `collie.config.*`
 * name. TypeScript/JavaScript modules and unreadable files count as `auto-iterate` (their loader
 * reports what is wrong).
 */
export function detectPreset(file: string): ConfigPreset {
  if (basename(file).startsWith('collie.config.')) return 'collie';
  if (!['.yaml', '.yml', '.json'].includes(extname(file).toLowerCase())) return 'auto-iterate';
  let data: unknown;
  try {
    data = parseYaml(readFileSync(file, 'utf8'));
  } catch {
    return 'auto-iterate';
  }
  if (!data || typeof data !== 'object') return 'auto-iterate';
  const d = data as Record<string, unknown>;
  if (d['preset'] === 'autoresearch' || d['preset'] === 'autotune') return d['preset'];
  if (d['preset'] === undefined && 'projectId' in d && 'task' in d) return 'collie';
  return 'auto-iterate';
}
