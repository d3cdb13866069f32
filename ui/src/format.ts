// Small display helpers.
import type { Usage } from '../../common';

export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} m ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} m`;
}

export function clock(at: number | string | undefined): string {
  if (at === undefined) return '–';
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? '–' : date.toLocaleString();
}

export const tokens = (usage: Usage | undefined) =>
  usage
    ? `${usage.totalTokens.toLocaleString()} tokens (${usage.promptTokens.toLocaleString()} in, ${usage.completionTokens.toLocaleString()} out)${cost(usage)}`
    : '–';

const dollars = (n: number) => (n === 0 ? '0' : n < 1 ? n.toPrecision(2) : n.toFixed(2));

/** ` · $0.063` for a usage with a price (` · $0.063 + unknown` when some model had none), else nothing. */
const cost = (usage: Usage) =>
  usage.costUsd !== undefined || usage.costUnknown
    ? ` · $${dollars(usage.costUsd ?? 0)}${usage.costUnknown ? ' + unknown' : ''}`
    : '';

/** JSON text pretty-printed when it parses, as it is otherwise (a model's malformed arguments stay visible). */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export const pretty = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));
