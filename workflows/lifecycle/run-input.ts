// A run's input is checked before anything else. Input that does not fit (sent by the Temporal CLI, another SDK or an
// older client) ends the run with RUN_FAILED and a non-retryable InvalidRunInput naming the bad fields. Thrown as
// is, zod's error would fail the first workflow task again and again: the run would hang and its streams never end.
import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import type { ZodError } from 'zod';
import { ErrorType } from '../../common';
import { createEmitter, eventBase } from '../events/emitter';
import { EventLogWriter } from '../events/event-log';
import { errorSummary } from './run-errors';
import { buildRunContext } from './run-context';
import { hostWire } from '../events/wire';

/**
 * Ends a run whose input failed its schema: publishes RUN_FAILED (for a root run) and throws a non-retryable
 * InvalidRunInput naming the bad fields. Callers parse synchronously and call this only on failure, so a valid
 * input reaches the run's first line in the same microtask as before.
 */
export async function failInvalidInput(raw: unknown, error: ZodError): Promise<never> {
  const fields = error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(input)',
    message: issue.message,
  }));
  const failure = ApplicationFailure.create({
    type: ErrorType.InvalidRunInput,
    message: `${workflowInfo().workflowType} input is invalid: ${fields.map((f) => `${f.path}: ${f.message}`).join('; ')}`,
    nonRetryable: true,
    details: [{ fields }],
  });
  await publishFailure(raw, failure);
  throw failure;
}

/**
 * A root run (no parent named in its input) hosts its own Wire: RUN_FAILED goes there and to its event log, so
 * its streams end. A nested run's parent sees the failure of its child.
 */
async function publishFailure(raw: unknown, failure: ApplicationFailure): Promise<void> {
  const given = (typeof raw === 'object' && raw !== null ? raw : {}) as {
    agent?: { name?: unknown };
    context?: { depth?: unknown; tenant?: unknown };
  };
  if (typeof given.context?.depth === 'number' && given.context.depth > 0) return;
  const agent = typeof given.agent?.name === 'string' ? given.agent.name : workflowInfo().workflowType;
  const tenant = typeof given.context?.tenant === 'string' ? given.context.tenant : undefined;
  const context = buildRunContext({ name: agent }, tenant ? { tenant } : undefined, workflowInfo().workflowId);
  const wire = hostWire(undefined);
  await createEmitter(eventBase(context, agent), wire).emit({
    type: 'RUN_FAILED',
    data: { error: errorSummary(failure) },
  });
  await new EventLogWriter(context, wire).logTail();
}
