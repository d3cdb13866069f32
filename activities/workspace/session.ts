// A writing tool's hold on its run's workspace, what the model is told when the quota refuses its changes, and which
// workspace a run's files are kept under.
import { WorkspaceQuotaExceededError } from '../../stores';

/** A writing tool's hold on its workspace: `finish` commits what it changed, `abandon` gives up (cancelled). */
export interface WorkspaceSession {
  /** Commits the tool's changes; past the quota, undoes them and throws WorkspaceQuotaExceededError. */
  finish(): Promise<void>;
  /** For a tool that did not finish: its changes are not committed, and the next sync puts the copy right. */
  abandon(): void;
}

/**
 * The workspace a run's files are kept under: a root run's, which holds its agent tools' workspaces
 * (`<root>/subagents/<name>`), so a parent sees what its children wrote as it did on one disk.
 */
export function workspaceTree(workspace: string): string {
  const at = workspace.indexOf('/subagents/');
  return at === -1 ? workspace : workspace.slice(0, at);
}

/**
 * Commits a writing tool's changes: undefined when they were kept, or what the model is told when the workspace's
 * quota refused them (they were undone; nothing the workspace held before the call is lost).
 */
export async function finishWorkspace(session: WorkspaceSession | undefined): Promise<string | undefined> {
  if (!session) return undefined;
  try {
    await session.finish();
    return undefined;
  } catch (err) {
    if (!(err instanceof WorkspaceQuotaExceededError)) throw err;
    return (
      `${err.message}. The changes this call made to the workspace were undone: it holds what it held before the ` +
      'call. Delete files the run no longer needs (they count against the quota), or write less.'
    );
  }
}
