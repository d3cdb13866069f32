// Compare two runs and re-drive runs in bulk (issue 35). Filled in by the re-drive work.
import type { Routes } from './context';

export const redriveRoutes: Routes = () => undefined;
