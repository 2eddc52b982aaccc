// The server-side time of a sandbox reset: the engine call a `POST /sandbox/reset` makes, timed
// in-process on the seeded file, so HTTP and the load generator are not part of the figure.
import { resolveConfig } from '../dist/config.js';
import { createRuntime } from '../dist/runtime.js';
import { fillSandbox, randomGenerator } from './seed-sandboxes.mjs';

/** Fills one sandbox with 20 rows and resets it, `rounds` times; returns the reset times' median and p99 in ms. */
export async function measureReset(file, rounds) {
  const runtime = await createRuntime(resolveConfig({ db: file }));
  const random = randomGenerator(7);
  const times = [];
  let purged = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      fillSandbox(runtime.engine, 'reset-probe', random);
      const start = process.hrtime.bigint();
      const counts = runtime.engine.reset('reset-probe');
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
      purged = Object.values(counts).reduce((a, b) => a + b, 0);
    }
  } finally {
    runtime.close();
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(rounds / 2)], p99: times[Math.floor(rounds * 0.99)], purged, rounds };
}
