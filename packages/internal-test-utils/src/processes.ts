import { readdirSync, readFileSync } from 'node:fs';

/**
 * The pids of live processes whose environment holds `entry` exactly (`NAME=value`), read from
 * `/proc/<pid>/environ` (Linux). Tests give the commands they start a unique marker variable and
 * check afterwards that nothing carrying it is left running (setsid escapees included).
 */
export function pidsWithEnv(entry: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry)) pids.push(Number(name));
    } catch {
      // gone, or not readable
    }
  }
  return pids;
}

/** True while `pid` runs: it has a `/proc` entry and is not a zombie waiting to be reaped (Linux). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
