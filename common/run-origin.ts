// Where a run came from when it was not started from scratch: a retry of a run from its last good step, or a fork of
// a run at one of its steps (issue 35). Kept in the new run's memo, its RUN_STARTED event and its workflow input.
import { z } from 'zod';
import { Step } from './steps';

/** The run a retry or fork was made from (exactly one of `retriedFrom`, `forkedFrom`), and for a fork its step. */
export const RunOrigin = z
  .object({
    /** The failed, cancelled or timed-out run this one continues from its last completed step. */
    retriedFrom: z.string().min(1).optional(),
    /** The run this one was forked from, at `step`. */
    forkedFrom: z.string().min(1).optional(),
    /** The step index of the source run the fork starts at (the steps before it are copied). */
    step: z.number().int().nonnegative().optional(),
  })
  .refine((o) => (o.retriedFrom === undefined) !== (o.forkedFrom === undefined), {
    message: 'a run origin names either retriedFrom or forkedFrom',
  });
/** The run a retry or fork was made from. */
export type RunOrigin = z.infer<typeof RunOrigin>;

/**
 * What a retried or forked agent run starts from instead of its instructions and input: the source run's steps (as
 * the stores recorded them, already cut and edited), which the new run commits as its own first steps, re-numbered
 * under its own id, and its origin.
 */
export const RunSeed = z.object({
  steps: z.array(Step).min(1),
  origin: RunOrigin,
});
/** What a retried or forked agent run starts from. */
export type RunSeed = z.infer<typeof RunSeed>;

/**
 * The patch under which an agent run with a seed commits the seed's steps instead of its instructions and input.
 * Only runs started with a seed ask it (earlier runs never had one), so no recorded history meets it.
 */
export const SEEDED_RUN_PATCH = 'agio-seeded-runs';

/** The run's origin as a memo or API answer shows it (nothing for a run started from scratch). */
export function originFields(origin: Partial<RunOrigin> | undefined): Partial<RunOrigin> {
  if (!origin) return {};
  const { retriedFrom, forkedFrom, step } = origin;
  return {
    ...(typeof retriedFrom === 'string' ? { retriedFrom } : {}),
    ...(typeof forkedFrom === 'string' ? { forkedFrom } : {}),
    ...(typeof step === 'number' ? { step } : {}),
  };
}
