#!/usr/bin/env node
// The proposer command of `loop_evaluate` (@loop/mcp): re-applies the coding agent's edit that the
// server stashed in <stash> (JSON: { description, files: [{ path, content: base64 | null }] }),
// removes the stash (so the server knows it was applied) and prints the description as the
// proposal's `DESCRIPTION:` line. Without a stash (a crash-repair call) it changes nothing.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const stash = process.argv[2];
let edit;
try {
  edit = JSON.parse(readFileSync(stash, 'utf8'));
} catch {
  process.stdout.write('DESCRIPTION: no further edit (the agent\'s edit was applied already)\n');
  process.exit(0);
}
for (const file of edit.files) {
  const path = join(process.cwd(), file.path);
  if (file.content === null) rmSync(path, { force: true });
  else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, Buffer.from(file.content, 'base64'));
  }
}
rmSync(stash, { force: true });
process.stdout.write(`DESCRIPTION: ${String(edit.description).replace(/[\r\n]+/g, ' ')}\n`);
