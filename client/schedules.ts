// A tenant's schedules on Temporal Schedules: create, update, list, describe, pause, unpause, trigger, backfill and
// delete. Every schedule lives under its tenant's id prefix with its tenant in its memo, and every call checks both,
// so a tenant never sees, changes or triggers another's schedule (another tenant's answers like a missing one).
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError as TemporalScheduleNotFound,
  type Client,
  type ScheduleDescription,
  type ScheduleHandle,
  type ScheduleUpdateOptions,
} from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { RunSearchAttributes } from '../common/search-attributes';
import {
  ScheduleDeclaration,
  ScheduleOverlap,
  scheduleIdOf,
  scheduleNameOf,
  type ScheduleMemo,
  type ScheduleSource,
} from '../common/schedules';
import {
  isTenantsSchedule,
  overlapPolicyOf,
  scheduleOptions,
  scheduleView,
  type ScheduleView,
} from './schedule-options';

export { type ScheduleView } from './schedule-options';

/** No schedule by that id for this tenant (it never existed, was deleted, or is another tenant's). */
export class ScheduleNotFoundError extends Error {
  override name = 'ScheduleNotFoundError';
  constructor(readonly id: string) {
    super(`no schedule with id "${id}"`);
  }
}

/** A create under an id the tenant already has a schedule under. */
export class ScheduleExistsError extends Error {
  override name = 'ScheduleExistsError';
  constructor(readonly id: string) {
    super(`a schedule with id "${id}" exists already: update it, or delete it first`);
  }
}

/** Options of {@link AgioSchedules.create} and {@link AgioSchedules.update}. */
export interface ScheduleWriteOptions {
  /** Who makes it (default `api`). */
  source?: ScheduleSource;
  /** Its runs may only tighten the agent's limits (the worker refuses more, as for a start by name). */
  tightenOnly?: boolean;
  /** Start one run at once (create only). */
  triggerNow?: boolean;
}

/** One schedule in a listing. */
export type ScheduleSummaryView = Pick<ScheduleView, 'id' | 'agent' | 'source' | 'paused' | 'nextRunTimes'> & {
  recentRuns: string[];
};

/** A tenant's schedules (see the file comment); reached as `AgioClient.schedules`. */
export class AgioSchedules {
  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
  ) {}

  /** Creates a schedule; ScheduleExistsError if the tenant has one under its id. */
  async create(
    tenant: string,
    declaration: ScheduleDeclaration,
    opts: ScheduleWriteOptions = {},
  ): Promise<ScheduleView> {
    const decl = ScheduleDeclaration.parse(declaration);
    const options = scheduleOptions(decl, {
      tenant,
      taskQueue: this.taskQueue,
      source: opts.source ?? 'api',
      workflowIdBase: `run-${randomUUID()}`,
      ...(opts.tightenOnly ? { tightenOnly: true } : {}),
    });
    try {
      await this.temporal.schedule.create({
        ...options,
        scheduleId: scheduleIdOf(tenant, decl.id),
      });
    } catch (err) {
      if (err instanceof ScheduleAlreadyRunning) throw new ScheduleExistsError(decl.id);
      throw err;
    }
    // Not the create's triggerImmediately: the SDK starts that run under allow_all, which the schedule does not track.
    if (opts.triggerNow) await this.trigger(tenant, decl.id);
    return this.get(tenant, decl.id);
  }

  /**
   * Replaces a schedule's declaration (its runs' workflow ids and, unless the declaration names them, its paused state
   * and note stay as they are).
   */
  async update(
    tenant: string,
    declaration: ScheduleDeclaration,
    opts: ScheduleWriteOptions = {},
  ): Promise<ScheduleView> {
    const decl = ScheduleDeclaration.parse(declaration);
    const { handle, description } = await this.described(tenant, decl.id);
    const source = (description.memo as unknown as ScheduleMemo).source;
    await handle.update((previous) => {
      const options = scheduleOptions(decl, {
        tenant,
        taskQueue: this.taskQueue,
        source,
        workflowIdBase: previous.action.workflowId,
        ...(opts.tightenOnly ? { tightenOnly: true } : {}),
      });
      const state = {
        paused: decl.paused ?? previous.state.paused,
        ...((decl.note ?? previous.state.note) ? { note: decl.note ?? previous.state.note } : {}),
      };
      const { memo: _memo, ...rest } = options;
      return { ...rest, state } as ScheduleUpdateOptions;
    });
    return this.get(tenant, decl.id);
  }

  /**
   * Creates the schedule, or updates it if the tenant has one under its id (several workers applying one agents file at
   * once all succeed, and one schedule results).
   */
  async upsert(
    tenant: string,
    declaration: ScheduleDeclaration,
    opts: ScheduleWriteOptions = {},
  ): Promise<'created' | 'updated'> {
    try {
      await this.create(tenant, declaration, opts);
      return 'created';
    } catch (err) {
      if (!(err instanceof ScheduleExistsError)) throw err;
      await this.update(tenant, declaration, opts);
      return 'updated';
    }
  }

  /** A tenant's schedule: declaration, state, next and recent runs; ScheduleNotFoundError if it has none by that id. */
  async get(tenant: string, id: string): Promise<ScheduleView> {
    const { description } = await this.described(tenant, id);
    return scheduleView(description);
  }

  /** The tenant's schedules (Temporal visibility: a schedule just created may take a moment to show). */
  async list(tenant: string): Promise<ScheduleSummaryView[]> {
    const quoted = `'${tenant.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
    const found: ScheduleSummaryView[] = [];
    for await (const s of this.temporal.schedule.list({ query: `${RunSearchAttributes.tenant.name} = ${quoted}` })) {
      const id = scheduleNameOf(tenant, s.scheduleId);
      const memo = s.memo as Partial<ScheduleMemo> | undefined;
      if (id === undefined || memo?.tenant !== tenant) continue;
      found.push({
        id,
        agent: memo.agent ?? '',
        source: memo.source ?? 'api',
        paused: s.state.paused,
        nextRunTimes: s.state.paused ? [] : s.info.nextActionTimes.map((t) => t.toISOString()),
        recentRuns: s.info.recentActions.map((a) => a.action.workflow.workflowId),
      });
    }
    return found.sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Deletes a schedule (runs it started go on). */
  async delete(tenant: string, id: string): Promise<void> {
    await (await this.described(tenant, id)).handle.delete();
  }

  /** Pauses a schedule: no run starts until it is unpaused (but for a trigger). */
  async pause(tenant: string, id: string, note?: string): Promise<ScheduleView> {
    await (await this.described(tenant, id)).handle.pause(note);
    return this.get(tenant, id);
  }

  /** Unpauses a schedule. */
  async unpause(tenant: string, id: string, note?: string): Promise<ScheduleView> {
    await (await this.described(tenant, id)).handle.unpause(note);
    return this.get(tenant, id);
  }

  /**
   * Starts a run now, paused or not, under the overlap policy given, else the schedule's own (the SDK's default,
   * allow_all, would start a run the schedule does not track: a later run would not see it running).
   */
  async trigger(tenant: string, id: string, overlap?: string): Promise<void> {
    const { handle, description } = await this.described(tenant, id);
    const policy =
      overlap === undefined ? description.policies.overlap : overlapPolicyOf(ScheduleOverlap.parse(overlap));
    await handle.trigger(policy);
  }

  /** Starts the runs that would have been due from `start` to `end` (under the overlap policy given, else its own). */
  async backfill(tenant: string, id: string, range: { start: Date; end: Date; overlap?: string }): Promise<void> {
    const { handle } = await this.described(tenant, id);
    await handle.backfill({
      start: range.start,
      end: range.end,
      ...(range.overlap ? { overlap: overlapPolicyOf(ScheduleOverlap.parse(range.overlap)) } : {}),
    });
  }

  /** The tenant's schedule by its id, described; ScheduleNotFoundError for a missing one and another tenant's. */
  private async described(
    tenant: string,
    id: string,
  ): Promise<{ handle: ScheduleHandle; description: ScheduleDescription }> {
    const handle = this.temporal.schedule.getHandle(scheduleIdOf(tenant, id));
    let description: ScheduleDescription;
    try {
      description = await handle.describe();
    } catch (err) {
      if (err instanceof TemporalScheduleNotFound) throw new ScheduleNotFoundError(id);
      throw err;
    }
    if (!isTenantsSchedule(description, tenant, id)) throw new ScheduleNotFoundError(id);
    return { handle, description };
  }
}
