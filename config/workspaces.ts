// How a worker keeps runs' workspaces, from the environment: in the stores (AGIO_WORKSPACE_SYNC=store) or in its own
// directory only (off: one worker, or a shared volume), and the quota of a run's workspace.
import type { WorkspaceQuota } from '../stores';
import type { AgioEnv } from './env';

/** The createWorker options for workspaces. */
export interface WorkspaceOptions {
  workspaceSync: 'store' | 'off';
  workspaceQuota: Partial<WorkspaceQuota>;
}

/** The workspace options the environment sets, with `fallback` when AGIO_WORKSPACE_SYNC is unset. */
export function workspaceOptionsFromEnv(
  env: Pick<AgioEnv, 'AGIO_WORKSPACE_SYNC' | 'AGIO_WORKSPACE_MAX_BYTES' | 'AGIO_WORKSPACE_MAX_FILES'>,
  fallback: 'store' | 'off',
): WorkspaceOptions {
  return {
    workspaceSync: env.AGIO_WORKSPACE_SYNC ?? fallback,
    workspaceQuota: {
      ...(env.AGIO_WORKSPACE_MAX_BYTES ? { maxBytes: env.AGIO_WORKSPACE_MAX_BYTES } : {}),
      ...(env.AGIO_WORKSPACE_MAX_FILES ? { maxFiles: env.AGIO_WORKSPACE_MAX_FILES } : {}),
    },
  };
}
