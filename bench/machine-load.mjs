// How much CPU processes outside the benchmark took while it measured: on 2 shared cores that is
// what makes a run noisy, so each row reports it. Linux only (/proc); elsewhere it reports nothing.
import { readFileSync } from 'node:fs';

export const ticksPerSecond = 100;

function busyTicks() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal: everything but idle and iowait was busy.
  return fields.slice(0, 8).reduce((sum, n, i) => (i === 3 || i === 4 ? sum : sum + n), 0);
}

/** CPU time (user + system) the process has used, in ticks of 1/100 s; 0 where /proc is missing. */
export function processTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Starts a window; `stop()` returns the cores (0..n) used by every process not in `pids()`. */
export function watchOthers(pids) {
  try {
    const own = () => pids().reduce((sum, pid) => sum + processTicks(pid), 0);
    const start = { all: busyTicks(), own: own(), at: performance.now() };
    return {
      stop() {
        const seconds = (performance.now() - start.at) / 1000;
        const others = busyTicks() - start.all - (own() - start.own);
        return Math.max(0, others / ticksPerSecond / seconds);
      },
    };
  } catch {
    return { stop: () => undefined };
  }
}
