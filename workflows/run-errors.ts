// How a run's ending error is recognised and reported; shared by agent runs and workflow agents.

/** True for the SDK's continue-as-new signal, which must propagate untouched (it is not a failure). */
export function isContinueAsNew(err: unknown): boolean {
  return (err as Error)?.name === 'ContinueAsNew';
}

/** The `{ type, message }` a RUN_FAILED / RUN_CANCELLED event carries. */
export function errorSummary(err: unknown): { type: string; message: string } {
  const e = err as { type?: string; name?: string; message?: string };
  return { type: e?.type ?? e?.name ?? 'Error', message: e?.message ?? String(err) };
}
