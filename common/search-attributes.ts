// Search attributes of root runs: what `GET /runs` and the Temporal UI list and filter runs by. A dev server
// started by Agio registers them; on any other cluster the bridge adds the missing ones at start-up.
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';

export const RunSearchAttributes = {
  tenant: defineSearchAttributeKey('AgioTenant', SearchAttributeType.KEYWORD),
  agent: defineSearchAttributeKey('AgioAgent', SearchAttributeType.KEYWORD),
  rootRunId: defineSearchAttributeKey('AgioRootRunId', SearchAttributeType.KEYWORD),
} as const;
