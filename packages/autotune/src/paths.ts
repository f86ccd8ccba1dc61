import { isAbsolute, resolve } from 'node:path';

/** Where the controller's files live. Each is an absolute path once resolved. */
export interface AutotunePaths {
  /** The only control-plane file (seed 004). @default `<artifactDir>/projects/autotune/meta/loop_state.json` */
  loopState: string;
  /**
   * Attempts per targeted improvement; source of "failed 3+ times" (seed 004). @default
   * `<artifactDir>/projects/autotune/meta/scoreboard.json`
   */
  scoreboard: string;
  /** One entry per round (seed 004). @default `<artifactDir>/projects/autotune/meta/changelog.md` */
  changelog: string;
  /**
   * The parked rationale when stopping as exhausted (seed 004). @default
   * `<artifactDir>/projects/autotune/meta/issues.md`
   */
  issues: string;
  /** Out-of-reach tasks, one per line (seed 004 exclusions). @default `<dir>/eval/config/cannot_handle_group.txt` */
  exclusions: string;
}

/**
 * The seed's key files, relative: the meta files to the artifact workspace, the exclusions file to
 * the app repository (seed 004 "Key Files").
 */
export const AUTOTUNE_PATHS: Readonly<AutotunePaths> = Object.freeze({
  loopState: 'projects/autotune/meta/loop_state.json',
  scoreboard: 'projects/autotune/meta/scoreboard.json',
  changelog: 'projects/autotune/meta/changelog.md',
  issues: 'projects/autotune/meta/issues.md',
  exclusions: 'eval/config/cannot_handle_group.txt',
});

/**
 * Resolves the controller's files: relative meta paths against `artifactDir`, a relative
 * exclusions path against `dir`; absolute paths are kept.
 */
export function resolveAutotunePaths(
  dir: string,
  artifactDir: string = dir,
  overrides: Partial<AutotunePaths> = {},
): AutotunePaths {
  const merged = { ...AUTOTUNE_PATHS, ...overrides };
  const at = (base: string, p: string) => (isAbsolute(p) ? p : resolve(base, p));
  return {
    loopState: at(artifactDir, merged.loopState),
    scoreboard: at(artifactDir, merged.scoreboard),
    changelog: at(artifactDir, merged.changelog),
    issues: at(artifactDir, merged.issues),
    exclusions: at(dir, merged.exclusions),
  };
}
