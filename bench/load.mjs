// One autocannon run, with latencies kept at full resolution: autocannon's own histogram counts
// whole milliseconds, too coarse for answers that take one or two.
import autocannon from 'autocannon';

/**
 * Runs `requestOptions` (autocannon's `path`/`method`/`headers`/`body` or `requests`) against `url`
 * for `duration` seconds, or for `amount` requests. Returns the 2xx count, elapsed seconds,
 * every 2xx latency in ms, and the failures.
 */
export function load(url, requestOptions, { connections, duration, amount }) {
  const latencies = [];
  let ok = 0;
  let failed = 0;
  const statuses = {};
  // Rates run from the start to the last answer, not to when autocannon noticed it was done.
  const started = performance.now();
  let last = started;
  // autocannon notices the end only on its sampling tick (a second by default): tick faster, so a
  // run lasts its duration and not the next whole second.
  const run = { url, connections, pipelining: 1, sampleInt: 50, ...(amount ? { amount } : { duration }), ...requestOptions };
  const instance = autocannon(run);
  instance.on('response', (_client, status, _bytes, responseTime) => {
    last = performance.now();
    if (status >= 200 && status < 300) {
      ok++;
      latencies.push(responseTime);
    } else {
      failed++;
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  });
  return new Promise((resolve, reject) => {
    instance.once('done', (result) => {
      const seconds = (last - started) / 1000;
      if (result.errors) statuses.error = result.errors;
      resolve({ ok, failed: failed + result.errors, statuses, seconds, latencies });
    });
    instance.once('error', reject);
  });
}

/** Several runs of the same subject as one: rates from totals, percentiles over every sample. */
export function combine(runs) {
  const latencies = Float64Array.from(runs.flatMap((r) => r.latencies)).sort();
  const ok = runs.reduce((n, r) => n + r.ok, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  const at = (q) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] : NaN);
  return {
    requests: ok,
    failed: runs.reduce((n, r) => n + r.failed, 0),
    statuses: runs.reduce((all, r) => {
      for (const [status, n] of Object.entries(r.statuses)) all[status] = (all[status] ?? 0) + n;
      return all;
    }, {}),
    rps: ok / seconds,
    p50: at(0.5),
    p99: at(0.99),
  };
}
