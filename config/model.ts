// The model provider from the environment: a real OpenAI-compatible endpoint when a key is set.
import type { ModelConfig } from '../activities/model/call-model';
import type { AgioEnv } from './env';
import { pricesFromEnv } from './prices';

/**
 * ModelConfig from OPENAI_API_KEY / OPENAI_BASE_URL / AGIO_MODEL / AGIO_RESPONSE_FORMAT / AGIO_MODEL_PROVIDER / prices
 * / the tenants' daily budget.
 */
export function modelConfigFromEnv(env: AgioEnv): ModelConfig {
  return {
    apiKey: env.OPENAI_API_KEY ?? 'not-set',
    baseURL: env.OPENAI_BASE_URL,
    defaultModel: env.AGIO_MODEL,
    responseFormat: env.AGIO_RESPONSE_FORMAT === 'true',
    ...(env.AGIO_MODEL_PROVIDER ? { provider: env.AGIO_MODEL_PROVIDER } : {}),
    prices: pricesFromEnv(env),
    ...(env.AGIO_TENANT_DAILY_BUDGET_USD ? { tenantDailyBudgetUsd: env.AGIO_TENANT_DAILY_BUDGET_USD } : {}),
  };
}
