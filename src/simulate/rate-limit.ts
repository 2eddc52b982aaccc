import { invalidSimulation } from '../errors.js';

/** `5/10s`: `limit` requests per window of `windowMs`; `spec` is the text it came from. */
export interface RateRule {
  limit: number;
  windowMs: number;
  spec: string;
}

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const maxWindowMs = 86_400_000;

/** Parses `5/10s`, `100/m`, `3/500ms` (a bare number of the window is seconds). */
export function parseRateLimit(text: string, source: string): RateRule {
  const match = /^\s*(\d{1,9})\/(\d{0,9})(ms|s|m|h)?\s*$/.exec(text);
  const limit = match ? Number(match[1]) : NaN;
  const windowMs = match ? (match[2] === '' ? 1 : Number(match[2])) * units[match[3] ?? 's'] : NaN;
  if (!(limit >= 1) || !(windowMs >= 1) || windowMs > maxWindowMs) {
    throw invalidSimulation(
      `${source} must be requests per window, such as "5/10s" or "100/m" (at least 1 request, a window of at most a day); got ${JSON.stringify(text)}`,
    );
  }
  return { limit, windowMs, spec: `${limit}/${windowMs}` };
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window ends (at least 1). */
  resetSeconds: number;
}

interface Budget {
  spec: string;
  limit: number;
  resetAt: number;
  used: number;
}

/**
 * Fixed-window budgets, one per sandbox (two sandboxes never share one). A window starts with a
 * sandbox's first request; a different rule (another `X-Simulate-Rate-Limit`) starts a new one.
 * Memory is bounded: past `maxBudgets`, ended windows are swept, then the oldest windows go.
 */
export function createRateLimiter(maxBudgets = 10_000) {
  const budgets = new Map<string, Budget>();

  const sweep = (now: number) => {
    for (const [sandbox, budget] of budgets) if (budget.resetAt <= now) budgets.delete(sandbox);
    // Insertion order is window start order: the first ones are the oldest.
    for (const sandbox of budgets.keys()) {
      if (budgets.size <= maxBudgets) break;
      budgets.delete(sandbox);
    }
  };

  return {
    /** Counts one request of `sandbox` against `rule` at `now` (ms); a refused request uses nothing. */
    take(sandbox: string, rule: RateRule, now: number): RateDecision {
      let budget = budgets.get(sandbox);
      if (!budget || budget.spec !== rule.spec || budget.resetAt <= now) {
        budgets.delete(sandbox);
        budget = { spec: rule.spec, limit: rule.limit, resetAt: now + rule.windowMs, used: 0 };
        budgets.set(sandbox, budget);
        if (budgets.size > maxBudgets) sweep(now);
      }
      const allowed = budget.used < budget.limit;
      if (allowed) budget.used++;
      return {
        allowed,
        limit: budget.limit,
        remaining: budget.limit - budget.used,
        resetSeconds: Math.max(1, Math.ceil((budget.resetAt - now) / 1000)),
      };
    },
    get size() {
      return budgets.size;
    },
  };
}
