// The search attributes Agio registers, for unit tests of registering them: what a namespace that has only AgioTenant
// lacks, in the order they are added, each with its indexed value type, and a fake connection's operator service.

/**
 * The Agio search attributes besides AgioTenant, in the order they are added, each with its indexed value type
 * (2 Keyword, 6 Datetime, 7 KeywordList).
 */
export const SEARCH_ATTRIBUTES_BESIDES_TENANT: Readonly<Record<string, number>> = {
  AgioAgent: 2,
  AgioRootRunId: 2,
  AgioWaiting: 7,
  AgioWaitingSince: 6,
  AgioWaitingTenant: 2,
  AgioRescuedFrom: 2,
};

/** A connection whose operator service lists `existing` and adds with `add` (typed as any connection). */
export function fakeOperatorConnection(existing: Record<string, number>, add: (request: unknown) => Promise<unknown>) {
  return {
    operatorService: { listSearchAttributes: async () => ({ customAttributes: existing }), addSearchAttributes: add },
  } as never;
}
