// Client entry point: AgioClient, the event reader and run listing.
export * from './agio-client';
export * from './event-reader';
export * from './run-list';
export * from './model-outage';
// What a run's handle rejects with, and RunHandle.waitFor's options.
export { RunCancelledError, RunClosedError, RunFailedError, RunNotFoundError, RunRefusedError } from './errors';
export type { PayloadCodecs } from './payload-codecs';
export type { WaitForOptions } from './wait-for';
export { MessageRefusedError, type MessageOptions } from './run-messages';
// The approvals inbox (AgioClient.pendingApprovals) and its items.
export type { PendingApprovalsOptions } from './approval-inbox';
export type { Inbox, InboxItem, PendingApproval, ExpiryAction } from '../common/approval-inbox';
// Schedules (AgioClient.schedules): what they answer and refuse, and the declaration they take.
export {
  AgioSchedules,
  ScheduleExistsError,
  ScheduleNotFoundError,
  type ScheduleSummaryView,
  type ScheduleView,
} from './schedules';
export { ScheduleDeclaration, type ScheduleSource } from '../common/schedules';
// Retries from the last good step and forks at a step (AgioClient.rescue), and why one is refused.
export {
  RunRescue,
  RescueRefusedError,
  forkRun,
  retryRun,
  type ForkOptions,
  type RescueRefusal,
  type RescuedRun,
  type RetryOptions,
} from './run-rescue';
// The events a run's stream carries, typed per event type (a client-only backend imports nothing else for them).
export { isKnownEvent, runStatusOf, RUN_STATUSES } from '../common';
export type { AgioEvent, AgioEventOf, EventType, UnknownAgioEvent, RunStatus } from '../common';
export * from '../common/event-data';
// The Temporal SDK classes a client needs, from the very version Agio pins (a second copy would not interoperate).
export { Client, Connection } from '@temporalio/client';
