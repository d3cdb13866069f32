// The sink through which a root's Wire hands the events it appends to the worker, which publishes them on the live
// lane (docs/ARCHITECTURE.md, "The Wire"). A sink call is no command and leaves no history; the worker makes it once
// the activation that appended the events is done, and never while the run replays.
import type { Sinks } from '@temporalio/workflow';
import type { WireEvent } from './events';

/** The worker-side functions workflow code may call (Temporal sinks). */
export interface WireSinks extends Sinks {
  wire: {
    /** Events the root (whose workflow id is the call's) has just appended to its Wire. */
    appended(events: WireEvent[]): void;
  };
}
