import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { useServer } from './helpers/server.js';

/** Contract section 11 / issue 21: delays are timers, never busy waiting or blocking. */
const server = useServer({ cli: true });

/** CPU seconds (user + system) the process used so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const sleep = (ms: number) => new Promise((wait) => setTimeout(wait, ms));

describe.runIf(process.platform === 'linux')('1,000 delayed requests in flight', () => {
  it('cost the server (almost) no CPU while they wait, block nothing, and all get their answer', async () => {
    const pid = server.proc.pid!;
    let answered = 0;
    const inFlight = Array.from({ length: 1_000 }, (_, i) =>
      fetch(`${server.api}/posts?limit=1`, { headers: { 'x-simulate-latency': '6s', 'x-sandbox': `load-${i % 50}` } }).then((r) => {
        answered++;
        return r.status;
      }),
    );
    // Let them all arrive (connecting and parsing costs CPU), then watch the quiet part of the wait.
    await sleep(2_000);
    const before = cpuSeconds(pid);
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    await sleep(2_000);
    const used = cpuSeconds(pid) - before;
    // They are all still waiting: this measured the wait, not an idle server.
    expect(answered).toBe(0);
    // Idle timers: a few ticks at most (a busy wait would use the whole 2 s).
    expect(used).toBeLessThan(0.3);
    const statuses = await Promise.all(inFlight);
    expect(statuses.filter((s) => s === 200).length).toBe(1_000);
  }, 30_000);
});
