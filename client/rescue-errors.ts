// Why a retry or fork of a run was refused before anything started (the bridge answers each with its own status).

/** Why a retry or fork was refused. */
export type RescueRefusal =
  /** A retry of a run still running (cancel it, or fork it). */
  | 'run_running'
  /** A retry of a run that completed (fork it instead). */
  | 'run_completed'
  /** Not an LLM agent run (workflow agents, a run by name that never resolved its agent). */
  | 'unsupported_run'
  /** The source run has no stored step to continue from. */
  | 'no_steps'
  /** A fork's step is not one of the source's stored steps. */
  | 'step_out_of_range'
  /** An edit that does not fit the step (a tool result for a user step…). */
  | 'step_mismatch'
  /** The copied conversation does not fit in one workflow input. */
  | 'seed_too_large';

/** A retry or fork refused before anything started: `reason` says why, the message what to do. */
export class RescueRefusedError extends Error {
  override name = 'RescueRefusedError';
  constructor(
    readonly reason: RescueRefusal,
    message: string,
  ) {
    super(message);
  }
}
