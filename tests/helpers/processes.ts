// Test helper: the host's processes whose command line contains a marker, seen from outside any sandbox (/proc).
import { promises as fs } from 'node:fs';
import { waitFor } from './workflow-agents';

/** Pids of live (non-zombie) processes whose command line contains `marker`. */
export async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const cmdline = await fs.readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.split('\0').join(' ').includes(marker)) continue;
    const stat = await fs.readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    if (stat && !/^\d+ \(.*\) [ZX]/.test(stat)) pids.push(Number(name));
  }
  return pids;
}

/** Waits until no process's command line contains `marker` (resolves false if some still do after `ms`). */
export async function noProcessesWith(marker: string, ms = 5000): Promise<boolean> {
  try {
    await waitFor(`no process running ${marker}`, async () => (await processesWith(marker)).length === 0, ms);
    return true;
  } catch {
    return false;
  }
}
