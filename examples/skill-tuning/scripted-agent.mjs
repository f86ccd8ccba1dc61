#!/usr/bin/env node
// A stand-in for an agent CLI (e.g. "claude -p") for the test and for a dry run: it reads the
// prompt on stdin like a real agent, then makes round LOOP_ITERATION's one change to the skill.
// Each edit is what a reviewer of the skill evaluator's notes would do.
import { readFileSync, writeFileSync } from 'node:fs';

const FILE = 'skill/changelog/SKILL.md';
const EDITS = [
  ['add negative trigger examples', (t) => t.replace('draft release notes for 2.3\n', 'draft release notes for 2.3\n- Should not trigger: fix a failing test, rename a variable\n')],
  ['state the constraints as CAN / CANNOT', (t) => t.replace('## Rules\n\n- Keep each line short.\n- Do not invent changes that are not in the commits.', '## Constraints\n\n- CAN read the git log and CHANGELOG.md.\n- CANNOT invent changes that are not in the commits.\n- NEVER rewrite entries of released versions.')],
  ['pad the intro (should be discarded)', (t) => t.replace('This skill helps', 'This skill usually helps, maybe, with some things and stuff; it')],
  ['remove vague words from the intro and step 2', (t) => t.replace('This skill helps with writing changelog entries and various related things.', 'Writes one changelog entry per release from the commits of the branch.').replace('; try to merge commits that belong together appropriately', '; one line per user-visible change')],
  ['specify input and output', (t) => t.replace('## Example', '## Input / Output\n\n- Input: a branch with commits ahead of main, and the version number.\n- Output: one new entry at the top of CHANGELOG.md.\n\n## Example')],
];

let prompt = '';
process.stdin.on('data', (d) => (prompt += d));
process.stdin.on('end', () => {
  const edit = EDITS[Number(process.env.LOOP_ITERATION) - 1];
  if (!edit || !prompt) return console.log('DESCRIPTION: nothing left to try');
  writeFileSync(FILE, edit[1](readFileSync(FILE, 'utf8')));
  console.log(`DESCRIPTION: ${edit[0]}`);
});
