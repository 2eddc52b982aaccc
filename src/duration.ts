const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/**
 * Parses seconds (a number or a numeric string) or a duration such as `"250ms"`, `"30m"`, `"7d"`
 * into seconds. Returns undefined for anything else, so callers name the bad key themselves.
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/.exec(value);
  if (!match) return undefined;
  return Number(match[1]) * units[match[2] ?? 's'];
}
