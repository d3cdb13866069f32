// AG-UI: every agent as an AG-UI agent (issue 34). Filled in by the AG-UI work.
import type { Routes } from './context';

export const agUiRoutes: Routes = () => undefined;
