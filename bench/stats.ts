// Small statistics helpers for the benchmarks: median, percentiles (nearest rank), mean and number formatting.

/** The p-th percentile (0–100) by nearest rank; NaN for an empty sample. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** The median (mean of the two middle values for an even count); NaN for an empty sample. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The 99th percentile (nearest rank). */
export function p99(values: readonly number[]): number {
  return percentile(values, 99);
}

/** Arithmetic mean; NaN for an empty sample. */
export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
}

/** Summary of a latency sample. */
export interface Summary {
  n: number;
  min: number;
  median: number;
  p99: number;
  max: number;
  mean: number;
}

/** n, min, median, p99, max and mean of a sample. */
export function summarize(values: readonly number[]): Summary {
  return {
    n: values.length,
    min: values.length ? Math.min(...values) : NaN,
    median: median(values),
    p99: p99(values),
    max: values.length ? Math.max(...values) : NaN,
    mean: mean(values),
  };
}

/** A number for the table: integers as is, small values with up to 2 decimals, NaN as "–". */
export function fmt(value: number | undefined, digits?: number): string {
  if (value === undefined || Number.isNaN(value)) return '–';
  if (digits !== undefined) return value.toFixed(digits);
  const abs = Math.abs(value);
  if (abs >= 100 || Number.isInteger(value)) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}
