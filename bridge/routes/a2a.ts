// A2A: agent cards and the A2A v1.0 JSON-RPC endpoint (issue 34). Filled in by the A2A work.
import type { Routes } from './context';

export const a2aRoutes: Routes = () => undefined;
