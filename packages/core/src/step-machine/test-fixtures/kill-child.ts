// One run of the world machine as its own process: `node --import tsx kill-child.ts <world> <killAt>`.
// It SIGKILLs itself (a real kill -9: no finally blocks, no lock release) at write point number
// <killAt> (0-based; -1: never), and otherwise prints the write points it passed as JSON.
import { createWorldMachine } from './world.js';

const [world, killAtText] = process.argv.slice(2);
if (world === undefined || killAtText === undefined) throw new Error('usage: kill-child.ts <world> <killAt>');
const killAt = Number(killAtText);
const points: string[] = [];
const machine = createWorldMachine(world, {
  beforeWrite: (point) => {
    if (points.length === killAt) process.kill(process.pid, 'SIGKILL');
    points.push(`${point.kind} ${point.step ?? '-'}${point.effect === undefined ? '' : ` ${point.effect}`}`);
  },
});
await machine.run(() => ({ label: 'w', results: [] }));
process.stdout.write(`${JSON.stringify(points)}\n`);
