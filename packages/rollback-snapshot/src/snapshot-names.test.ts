import { describe, expect, it } from 'vitest';
import {
  BASELINE_DIR_PATTERN,
  KEPT_DIR_PATTERN,
  baselineDirName,
  keptDirName,
  preEditFileName,
  safeFileName,
  slugify,
  utcStamp,
} from './snapshot-names.js';

describe('snapshot names (seed 002)', () => {
  const t = Date.UTC(2026, 10, 30, 4, 5, 6, 789);
  it('the UTC stamp is date -u +%Y%m%dT%H%M%SZ', () => {
    expect(utcStamp(t)).toBe('20261130T040506Z');
  });
  it('the slug is a short kebab of the idea, edit when empty', () => {
    expect(slugify('Extract   parseHeader() helper!')).toBe('extract-parseheader-helper');
    expect(slugify('***')).toBe('edit');
    expect(slugify('a'.repeat(60)).length).toBe(40);
  });
  it('safe-F turns a relative path into one file name', () => {
    expect(safeFileName('src/lib/a b.ts')).toBe('src__lib__a_b.ts');
  });
  it('baseline, pre-edit and kept names follow the seed and match their patterns', () => {
    expect(baselineDirName(t)).toBe('000-baseline-20261130T040506Z');
    expect(BASELINE_DIR_PATTERN.test(baselineDirName(t))).toBe(true);
    expect(preEditFileName(4, 'x', 'src/a.ts', t)).toBe('004-pre-x-src__a.ts-20261130T040506Z');
    expect(KEPT_DIR_PATTERN.exec(keptDirName(12, 'y', t))?.[1]).toBe('012');
  });
});
