#!/usr/bin/env node
// A stand-in for an agent CLI (e.g. "claude -p") for the test and for a dry run: it reads the
// prompt on stdin like a real agent, then makes round LOOP_ITERATION's one change to the memory
// folder, the kind of change the memory evaluator's notes ask for.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const M = 'memory';
const edit = (file, f) => writeFileSync(`${M}/${file}`, f(readFileSync(`${M}/${file}`, 'utf8')));
const EDITS = [
  ['delete the duplicate notes/db.md', () => rmSync(`${M}/notes/db.md`)],
  ['delete the whole index (should be discarded)', () => rmSync(`${M}/MEMORY.md`)],
  ['delete the superseded 2024 deploy note and the empty scratch file', () => {
    rmSync(`${M}/notes/deploys-2024.md`);
    rmSync(`${M}/notes/scratch.md`);
  }],
  ['fold the billing owner into owners.md and drop the chat log', () => {
    edit('notes/owners.md', (t) => `${t}Alice owns the billing service and the invoice PDFs.\n`);
    rmSync(`${M}/notes/billing-chat.md`);
  }],
  ['drop the on-call link to a note that does not exist', () => edit('MEMORY.md', (t) => t.replace('- [On-call](notes/oncall.md): the rota\n', ''))],
];

let prompt = '';
process.stdin.on('data', (d) => (prompt += d));
process.stdin.on('end', () => {
  const e = EDITS[Number(process.env.LOOP_ITERATION) - 1];
  if (!e || !prompt) return console.log('DESCRIPTION: nothing left to try');
  e[1]();
  console.log(`DESCRIPTION: ${e[0]}`);
});
