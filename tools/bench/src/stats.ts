/** Percentile over a sorted copy; samples in milliseconds. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export const ms = (n: number, digits = 4) => `${n.toFixed(digits)} ms`;
