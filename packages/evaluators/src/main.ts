// The loop-evaluate entry point (bin/loop-evaluate.js in a build; src/main.ts under tsx from source).
import { main } from './evaluate-command.js';

process.exitCode = await main(process.argv.slice(2));
