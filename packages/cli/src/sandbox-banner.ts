import { bwrapStatus, type BwrapStatus } from '@loop/core/process';
import type { LoopConfig } from './config.js';
import type { ResolvedRunConfig } from './resolve-run-config.js';

/** What every confined command sees instead of the host's `/tmp` (core's bwrap `--tmpfs /tmp`). */
export const PRIVATE_TMP_NOTE =
  'its /tmp is a private, empty tmpfs: the host /tmp is hidden (but for the workspace and writable paths under it)';

const list = (paths: readonly string[]) => paths.join(', ');

/**
 * The `sandbox` lines of the `loop run` / `loop resume` banner: one per command that will run
 * confined by bubblewrap here (the agent proposer under `sandbox: auto` or `bwrap`; the run and
 * checks commands under `harness.sandbox`), saying what it may write and that its `/tmp` is
 * private, the host's hidden. Nothing for unconfined commands (`none`, or `auto` where bwrap does
 * not work: that case gets core's one "no sandbox" warning instead).
 *
 * @param status what is known about bwrap here. @default bwrapStatus()
 */
export function sandboxBannerLines(
  config: LoopConfig,
  resolved: ResolvedRunConfig,
  status: BwrapStatus = bwrapStatus(),
): string[] {
  if (!status.available) return [];
  const lines: string[] = [];
  const p = config.proposer;
  if (p.type === 'agent' && p.sandbox !== 'none') {
    lines.push(
      `sandbox   agent in bwrap: writes ` +
        `only ${list([...resolved.targetFiles, ...p.writable])}; ${PRIVATE_TMP_NOTE}; ` +
        `network ${p.network ? 'on' : 'off'}`,
    );
  }
  const h = config.harness;
  if (h && h.sandbox !== 'none') {
    lines.push(
      `sandbox   run${config.checks ? ' and checks' : ''} command in bwrap: ` +
        `writes only ${list(['the workspace', ...h.writable])}; ${PRIVATE_TMP_NOTE}; ` +
        `network ${h.network ? 'on' : 'off'}`,
    );
  }
  return lines;
}
