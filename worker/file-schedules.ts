// Schedules declared in an agents file (`schedules:`): checked with the file, and applied by every worker that serves
// it when it starts (create, or update to the file's declaration; never deleted from here: see applyFileSchedules).
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { AgioSchedules } from '../client/schedules';
import { ScheduleFields, oneTiming } from '../common/schedules';

/** A schedule as written in an agents file: a declaration and the tenant its runs belong to (default `default`). */
export const FileSchedule = ScheduleFields.extend({
  tenant: z
    .string()
    .regex(/^[A-Za-z0-9._:@-]{1,128}$/, 'tenant: 1-128 letters, digits, . _ : @ -')
    .optional(),
}).refine(...oneTiming);
/** A schedule of an agents file. */
export type FileSchedule = z.infer<typeof FileSchedule>;

/** Reports schedules of unknown agents and ids declared twice for one tenant. */
export function checkFileSchedules(
  schedules: FileSchedule[],
  agents: string[],
  problem: (at: (string | number)[], message: string) => void,
): void {
  const seen = new Map<string, number>();
  schedules.forEach((s, i) => {
    if (!agents.includes(s.agent))
      problem(['schedules', i, 'agent'], `unknown agent "${s.agent}"; the file defines: ${agents.join(', ')}`);
    const key = `${s.tenant ?? 'default'}/${s.id}`;
    if (seen.has(key))
      problem(['schedules', i, 'id'], `schedule "${s.id}" is declared twice (also schedules[${seen.get(key)}])`);
    else seen.set(key, i);
  });
}

/**
 * What applying a file's schedules did, by schedule (`failed` with Temporal's refusal: the others are applied still).
 */
export type AppliedSchedules = {
  tenant: string;
  id: string;
  result: 'created' | 'updated' | 'failed';
  error?: string;
}[];

/** `acme/nightly (created), acme/hourly (failed: …)` for a process's log. */
export const describeApplied = (applied: AppliedSchedules): string =>
  applied.map((a) => `${a.tenant}/${a.id} (${a.result}${a.error ? `: ${a.error}` : ''})`).join(', ');

/**
 * Creates each schedule of the file, or updates one that exists to the file's declaration (its paused state and note
 * stay: an operator's pause survives a restart). Idempotent, so every worker of a fleet applies it at start, at the
 * same time if need be. A schedule removed from the file is left as it is: a worker of an older release, restarting
 * during a rollout, would otherwise delete a newer file's schedules; delete it with `agio schedule delete`.
 */
export async function applyFileSchedules(
  temporal: Client,
  taskQueue: string,
  schedules: FileSchedule[],
): Promise<AppliedSchedules> {
  const client = new AgioSchedules(temporal, taskQueue);
  const applied: AppliedSchedules = [];
  for (const { tenant = 'default', ...declaration } of schedules) {
    await client.upsert(tenant, declaration, { source: 'agents-file' }).then(
      (result) => applied.push({ tenant, id: declaration.id, result }),
      (err: Error) => applied.push({ tenant, id: declaration.id, result: 'failed', error: err.message }),
    );
  }
  return applied;
}
