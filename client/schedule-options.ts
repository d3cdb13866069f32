// What a schedule declaration becomes on Temporal (the schedule's spec, action, policies, memo and search attributes)
// and what a Temporal schedule description becomes for Agio's callers (ScheduleView).
import type { ScheduleDescription, ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { RunSearchAttributes, WorkflowType, type AgentByNameInput, type RunMemo } from '../common';
import {
  SCHEDULED_BY,
  durationMs,
  scheduleIdOf,
  scheduleNameOf,
  type ScheduleDeclaration,
  type ScheduleMemo,
  type ScheduleSource,
} from '../common/schedules';

/** The memo of a scheduled run: a run's memo, plus the schedule's declaration as it was when the run was started. */
export interface ScheduledRunMemo extends RunMemo {
  schedule: ScheduleDeclaration;
}

/** Runs missed by at most this long after an outage are still started, unless the schedule says otherwise. */
export const DEFAULT_CATCHUP_WINDOW_MS = 60_000;

/** A schedule as Agio's callers see it: its declaration, its state and what it did lately. */
export interface ScheduleView extends ScheduleDeclaration {
  source: ScheduleSource;
  paused: boolean;
  overlap: string;
  /** When the next runs are due (ISO times; none while paused). */
  nextRunTimes: string[];
  /** The latest runs it started: run id, when due and when started. */
  recentRuns: { runId: string; scheduledAt: string; startedAt: string }[];
  /** Its runs that still run. */
  runningRuns: string[];
  /** How many runs it started, skipped because the previous one still ran, or missed after an outage. */
  counts: { started: number; skippedOverlap: number; missedCatchupWindow: number };
  createdAt: string;
}

/** How a start by a schedule is asked for. */
export interface ScheduleTarget {
  tenant: string;
  taskQueue: string;
  source: ScheduleSource;
  /** The workflow id Temporal appends each run's due time to (`run-<uuid>-2026-01-01T09:00:00Z`). */
  workflowIdBase: string;
  /** The worker refuses limits above the agent's own (callers that may not raise them). */
  tightenOnly?: boolean;
}

/** Temporal's overlap policy of a declaration (default skip). */
export const overlapPolicyOf = (overlap: string | undefined): ScheduleOverlapPolicy =>
  (overlap ?? 'skip').toUpperCase() as ScheduleOverlapPolicy;

/** Everything a schedule is created or updated with, but its id. */
export function scheduleOptions(
  decl: ScheduleDeclaration,
  target: ScheduleTarget,
): Omit<ScheduleOptions, 'scheduleId'> {
  const { tenant } = target;
  const args: AgentByNameInput = {
    agentName: decl.agent,
    input: decl.input,
    context: { tenant, ...(decl.limits ? { limits: decl.limits } : {}) },
    ...(target.tightenOnly ? { tightenOnly: true } : {}),
  };
  const runMemo: ScheduledRunMemo = { tenant, agent: decl.agent, schedule: decl };
  const attributes = [
    { key: RunSearchAttributes.tenant, value: tenant },
    { key: RunSearchAttributes.agent, value: decl.agent },
  ];
  const memo: ScheduleMemo = { tenant, agent: decl.agent, source: target.source, declaration: decl };
  return {
    spec: {
      ...(decl.cron ? { cronExpressions: decl.cron } : {}),
      ...(decl.every !== undefined ? { intervals: [{ every: durationMs(decl.every)! }] } : {}),
      ...(decl.timezone ? { timezone: decl.timezone } : {}),
      ...(decl.jitter !== undefined ? { jitter: durationMs(decl.jitter)! } : {}),
    },
    action: {
      type: 'startWorkflow',
      workflowType: WorkflowType.byName,
      taskQueue: target.taskQueue,
      workflowId: target.workflowIdBase,
      args: [args],
      memo: runMemo as unknown as Record<string, unknown>,
      typedSearchAttributes: attributes,
    },
    policies: {
      overlap: overlapPolicyOf(decl.overlap),
      catchupWindow: decl.catchupWindow !== undefined ? durationMs(decl.catchupWindow)! : DEFAULT_CATCHUP_WINDOW_MS,
      pauseOnFailure: decl.pauseOnFailure ?? false,
    },
    memo: memo as unknown as Record<string, unknown>,
    typedSearchAttributes: attributes,
    state: { paused: decl.paused ?? false, ...(decl.note ? { note: decl.note } : {}) },
  };
}

/** The run ids in a description's action results. */
const runIdOf = (result: { workflow: { workflowId: string } }) => result.workflow.workflowId;

/** A Temporal schedule's description as Agio's callers see it (the declaration from the runs' memo: it updates). */
export function scheduleView(description: ScheduleDescription): ScheduleView {
  const memo = description.memo as unknown as ScheduleMemo;
  const runMemo = description.action.memo as unknown as Partial<ScheduledRunMemo> | undefined;
  const declaration = runMemo?.schedule ?? memo.declaration;
  return {
    ...declaration,
    source: memo.source,
    paused: description.state.paused,
    ...(description.state.note ? { note: description.state.note } : {}),
    overlap: (description.policies.overlap ?? 'SKIP').toLowerCase(),
    // Temporal lists the spec's next times even while paused; none of them will start a run then.
    nextRunTimes: description.state.paused ? [] : description.info.nextActionTimes.map((t) => t.toISOString()),
    recentRuns: description.info.recentActions.map((a) => ({
      runId: runIdOf(a.action),
      scheduledAt: a.scheduledAt.toISOString(),
      startedAt: a.takenAt.toISOString(),
    })),
    runningRuns: description.info.runningActions.map(runIdOf),
    counts: {
      started: description.info.numActionsTaken,
      skippedOverlap: description.info.numActionsSkippedOverlap,
      missedCatchupWindow: description.info.numActionsMissedCatchupWindow,
    },
    createdAt: description.info.createdAt.toISOString(),
  };
}

/** Whether a described schedule is this tenant's (its id is under the tenant's prefix and its memo names it). */
export function isTenantsSchedule(description: ScheduleDescription, tenant: string, id: string): boolean {
  return (
    description.scheduleId === scheduleIdOf(tenant, id) &&
    (description.memo as Partial<ScheduleMemo> | undefined)?.tenant === tenant
  );
}

/** The tenant's schedule that started a workflow, from its indexed search attributes (visibility's or describe's). */
export function scheduleOfRun(
  indexedFields: Record<string, Payload> | null | undefined,
  tenant: string,
): string | undefined {
  const payload = indexedFields?.[SCHEDULED_BY];
  return payload ? scheduleNameOf(tenant, defaultPayloadConverter.fromPayload<string>(payload)) : undefined;
}
