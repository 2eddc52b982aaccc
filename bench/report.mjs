// The results table, for the terminal and for bench/RESULTS.md.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** Hand-written analysis below this heading in RESULTS.md survives the next run's rewrite. */
const notesHeading = '## Notes (kept across runs)';

const fixed = (n, digits) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const thousands = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');

/** Rows: {name, rps, p50, p99, refRps, ratio, target, result, failed}. */
export function formatTable(rows) {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'reference req/s', 'ratio', 'target', 'result', 'non-2xx', "others' CPU"];
  const body = rows.map((r) => [
    r.name,
    thousands(r.rps),
    fixed(r.p50, 2),
    fixed(r.p99, 2),
    thousands(r.refRps),
    fixed(r.ratio, 2),
    r.target ?? '',
    r.result ?? '',
    r.failed ? String(r.failed) : '0',
    fixed(r.others, 2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 || (i >= 6 && i <= 8) ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 || (i >= 6 && i <= 8) ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

/** Rewrites RESULTS.md with this run, keeping the notes section of the previous file. */
export function writeResults(file, { date, code, machine, settings, table }) {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const at = previous.indexOf(notesHeading);
  const notes = at === -1 ? `${notesHeading}\n\n(none yet)\n` : previous.slice(at);
  const text = `# Benchmark results

Written by \`npm run bench\` (bench/run.mjs) on ${date}. Rerun it to refresh everything above the notes.

- Code: ${code}
- Machine: ${machine}
- Settings: ${settings}

${table}

## How to read this

- Read the **ratio**, not the absolute numbers. The reference is a raw \`node:http\` server in its
  own process answering the very bytes and headers the real server sent for that scenario, run
  in the same minutes with the same autocannon settings. The machine's 2 cores are shared by the
  server, the reference and the load generator (and by anything else running), so absolute req/s
  swing from run to run; the ratio swings far less.
- Each server and its reference run alternately, never together: a warm-up, then short slices in
  mirrored order (A B B A A B B A), so drift in the machine's load falls on both sides alike.
  p50/p99 are over every 2xx answer of all slices, at microsecond resolution (autocannon's own
  histogram rounds to whole ms). "others' CPU" says how many cores processes outside the
  benchmark took meanwhile: a row where it is high was disturbed (rerun it with
  \`node bench/run.mjs --only '<scenario>'\`, which prints without rewriting this file).
- Compare ratios within a row, not reference figures across rows: where requests are built one
  by one (uncached rows, the busy pair, create then delete, reset) the load generator works
  harder and the reference, which waits on it most, slows more than the server. That is why the
  paired 1-sandbox list shows a higher ratio than "list page", whose requests are prebuilt.
- Cached rows repeat one request, as users reloading a page do; the server answers them from its
  per-sandbox answer cache. "uncached" rows add \`_=<n>\` (accepted and ignored by the query
  parser) so every request differs and the SQL runs every time.
- The busy rows use a second server whose file holds 5,000 sandboxes with 20 overlay rows each
  (10 created, 4 changed and 2 deleted posts, 2 comments, 2 todos), requests spread over random
  sandbox cookies; they are paired in the same minutes with the one-sandbox server (the
  "1 sandbox, paired" row), and the target compares their p50. Before the cached busy row is
  timed, every busy sandbox asks once, so each one's page is in the answer cache, as in steady
  use; the uncached busy row measures the SQL over the big file.
- reset (HTTP) resets each busy sandbox once (20 rows purged per request) and counts requests, not
  seconds. The server-side reset row times the engine call itself in-process on the seeded file
  (fill 20 rows, reset, repeated).
- Targets are benchmark goals, not tests.

${notes}`;
  writeFileSync(file, text);
}
