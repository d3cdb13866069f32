// The activity of the session's runner (workflows/jobs/session-runner.ts): a run a `rollback` start cancelled leaves
// its session's conversation.
import type { Stores } from '../stores';
import type { RollBackRunInput } from '../common/contracts/persistence';

/** The session runner's activities, bound to the worker's stores. */
export function createSessionRunActivities(stores: Stores) {
  return {
    /** Marks the run rolled back: the session's conversation skips its steps from now on (idempotent). */
    async rollBackRun({ tenant, runId }: RollBackRunInput): Promise<void> {
      await stores.sessions.rollBackRun(tenant, runId);
    },
  };
}
