// What every benchmark shares: its output format (one JSON line per record) and percentiles.

/** Prints one JSON line, stamped with the time. */
export function emit(record) {
  console.log(JSON.stringify({ at: new Date().toISOString(), ...record }));
}

/** The p-th percentile (nearest rank) of an ascending array, to 0.01. */
export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[i] * 100) / 100;
}
