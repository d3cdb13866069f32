// Rescue: retry, fork, compare and bulk re-drive of runs (issue 35). Filled in by the rescue work.
import type { Routes } from './context';

export const rescueRoutes: Routes = () => undefined;
