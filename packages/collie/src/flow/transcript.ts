import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TIER_MODELS, type CapabilityTier } from '../agent.js';
import type { FlowCommandOutcome } from './run-command.js';
import type { TreeChange as SnapshotChange } from '@loop/rollback-snapshot';

/** Lines of an agent reply kept in the transcript. */
const REPLY_LINES = 8;

const fence = (text: string) => `\`\`\`\n${text.replace(/`{3,}/g, '`‵`')}\n\`\`\``;
const changeList = (changes: readonly SnapshotChange[]) =>
  changes.map((c) => `${c.path} (${c.status})`).join(', ') || '(none)';

/**
 * The per-FIX transcript of the flow pipeline (`<FIX-id>.flow.md`): one section per step, with
 * the agent's role, tier and first reply lines, or the command, its exit and log tail, plus the
 * files each step changed and those outside the FIX's key files.
 */
export class FlowTranscript {
  private readonly sections: string[] = [];
  private n = 0;

  constructor(
    private readonly fixId: string,
    header: readonly string[],
  ) {
    this.sections.push(`# ${fixId} flow transcript\n\n${header.map((h) => `- ${h}`).join('\n')}`);
  }

  /** Records one agent step. */
  agent(
    role: string,
    tier: CapabilityTier,
    reply: string,
    changes: readonly SnapshotChange[],
    outside: readonly string[],
  ): void {
    const first = reply.trim().split('\n').slice(0, REPLY_LINES).join('\n') || '(empty reply)';
    this.add(`${role} (${tier} → ${TIER_MODELS[tier]})`, [
      `reply (first lines):\n\n${fence(first)}`,
      `changes: ${changeList(changes)}`,
      ...(outside.length > 0
        ? [`outside key_files (recorded, not blocked; G6 audits them): ${outside.join(', ')}`]
        : []),
    ]);
  }

  /** Records one command step. */
  command(label: string, outcome: FlowCommandOutcome, expectation: string): void {
    this.add(label, [
      `command: \`${outcome.command}\``,
      `exit code: ${outcome.exitCode ?? 'none'} (${outcome.describe}; ${expectation})`,
      `log tail:\n\n${fence(outcome.tail || '(empty)')}`,
    ]);
  }

  /** Records a free-form note. */
  note(label: string, text: string): void {
    this.add(label, [text]);
  }

  /** The markdown text. */
  render(): string {
    return `${this.sections.join('\n\n')}\n`;
  }

  /** Writes `<dir>/<FIX-id>.flow.md`; returns its path. */
  async write(dir: string): Promise<string> {
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${this.fixId}.flow.md`);
    await writeFile(path, this.render());
    return path;
  }

  private add(title: string, lines: readonly string[]): void {
    this.n += 1;
    this.sections.push(`## ${this.n}. ${title}\n\n${lines.join('\n\n')}`);
  }
}
