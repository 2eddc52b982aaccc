import { invalidSimulation } from '../errors.js';

/** Contract section 11: a simulated delay is at most 30 s, so a typo cannot hang a test suite. */
export const maxLatencyMs = 30_000;

/** A delay in milliseconds, fixed (`min === max`) or drawn at random from the range. */
export interface LatencyRange {
  min: number;
  max: number;
}

const part = /^(\d{1,9}(?:\.\d{1,6})?)(ms|s)?$/;

/**
 * Parses `250`, `250ms`, `1s`, `1.5s` or a range `100-400` (each end may carry a unit). `source`
 * names the header, parameter or config key in the 400 INVALID_SIMULATION.
 */
export function parseLatency(value: string | number, source: string): LatencyRange {
  if (typeof value === 'number') return checked(value, value, source, String(value));
  const text = value.trim();
  const dash = text.indexOf('-', 1);
  const min = toMs(dash === -1 ? text : text.slice(0, dash));
  const max = dash === -1 ? min : toMs(text.slice(dash + 1));
  return checked(min, max, source, value);
}

function checked(min: number, max: number, source: string, given: string): LatencyRange {
  if (!Number.isFinite(min) || !Number.isFinite(max) || min < 0 || max < min || max > maxLatencyMs) {
    throw invalidSimulation(
      `${source} must be milliseconds, a duration such as "250ms" or "1s", or a range such as "100-400", of at most ${maxLatencyMs / 1000} s; got ${JSON.stringify(given)}`,
    );
  }
  return { min, max };
}

function toMs(text: string): number {
  const match = part.exec(text.trim());
  if (!match) return NaN;
  return Number(match[1]) * (match[2] === 's' ? 1000 : 1);
}

/** The delay for one request: whole milliseconds, uniform over the range. */
export function pickDelay(range: LatencyRange): number {
  return Math.round(range.min + Math.random() * (range.max - range.min));
}
