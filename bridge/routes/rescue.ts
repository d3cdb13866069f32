// Rescue: retry a run from its last good step, fork it at a step (issue 35). Filled in by the rescue work.
import type { Routes } from './context';

export const rescueRoutes: Routes = () => undefined;
