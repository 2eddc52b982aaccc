// Issue 29's goal: "with 10,000 sandboxes each holding 30 records, the mix's p99 ≤ 1.5× its p99 on
// an empty file". Two servers of the working tree's build (`npm run build` first): one on a file
// seeded in-process through the engine (one transaction), one on a new, empty file. Both run the
// e2e mix of bench/scenarios.mjs over the same 200 sandbox keys (on the seeded file, 200 of its
// sandboxes spread over it; on the empty file they start empty), in mirrored slices.
//   node bench/many-sandboxes.mjs [--sandboxes 10000] [--records 30] [--rounds 3] [--duration 5]
//     [--connections 10] [--profile] [--keep <dir>] [--seeded <file>]
// --profile: both servers run with --cpu-prof; the top self-time functions of each are printed
// (--keep: the profiles are kept there).
// --seeded: a seeded file kept between runs (seeded there when missing; each run works on a copy).
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { combine, load } from './load.mjs';
import { processTicks, ticksPerSecond } from './machine-load.mjs';
import { summariseProfile } from './profile-summary.mjs';
import { benchConfig, buildScenarios } from './scenarios.mjs';
import { seedSandboxes } from './seed-sandboxes.mjs';
import { startMockapi } from './servers.mjs';

const { values: args } = parseArgs({
  options: {
    sandboxes: { type: 'string', default: '10000' },
    records: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    profile: { type: 'boolean', default: false },
    seeded: { type: 'string' },
    keep: { type: 'string' },
  },
});
const count = Number(args.sandboxes);
const rows = Number(args.records);
const rounds = Math.max(1, Number(args.rounds));
const seconds = Number(args.duration);
const connections = Number(args.connections);
const log = (line) => process.stderr.write(`${line}\n`);

const dir = mkdtempSync(join(tmpdir(), 'mockapi-many-'));
const servers = [];
try {
  writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify(benchConfig));
  const keys = Array.from({ length: count }, (_, i) => `many-${String(i).padStart(5, '0')}`);
  const mixKeys = Array.from({ length: 200 }, (_, i) => keys[Math.floor((i * count) / 200)]);
  const files = { empty: join(dir, 'empty.db'), full: join(dir, 'full.db') };
  const seeded = args.seeded ?? files.full;
  if (!existsSync(seeded)) {
    log(`seeding ${count.toLocaleString('en-US')} sandboxes × ${rows} records ...`);
    const ms = await seedSandboxes(seeded, keys, 1, undefined, { rows, config: benchConfig, dispatched: true });
    log(`  ${(ms / 1000).toFixed(1)} s, ${(statSync(seeded).size / 2 ** 20).toFixed(0)} MB`);
  }
  if (seeded !== files.full) copyFileSync(seeded, files.full);

  const profileDir = join(dir, 'profiles');
  const subjects = {};
  for (const [name, db] of Object.entries(files)) {
    const nodeArgs = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`] : [];
    const server = await startMockapi({ db, cwd: dir, nodeArgs });
    servers.push(server);
    subjects[name] = server;
  }
  const mix = buildScenarios({ busyKeys: mixKeys, mixKeys }).find((s) => s.name.startsWith('e2e mix'));
  const kinds = Object.keys(subjects);
  for (const kind of kinds) await load(subjects[kind].url, mix.requests({ kind }, true), { connections, duration: 1 });
  const runs = Object.fromEntries(kinds.map((k) => [k, []]));
  const cpu = Object.fromEntries(kinds.map((k) => [k, 0]));
  const order = Array.from({ length: rounds }, (_, i) => (i % 2 ? [...kinds].reverse() : kinds)).flat();
  for (const kind of order) {
    const ticks = processTicks(subjects[kind].pid);
    runs[kind].push(await load(subjects[kind].url, mix.requests({ kind }, false), { connections, duration: seconds }));
    cpu[kind] += processTicks(subjects[kind].pid) - ticks;
    const last = runs[kind].at(-1);
    log(`  ${kind}: ${Math.round(last.ok / last.seconds)} req/s`);
  }
  for (const server of servers.splice(0)) await server.stop();

  const results = Object.fromEntries(
    kinds.map((kind) => {
      const all = combine(runs[kind]);
      const perSlice = runs[kind].map((run) => combine([run]).p99);
      return [kind, { ...all, perSlice, cpuUs: (cpu[kind] / ticksPerSecond / (all.requests + all.failed)) * 1e6 }];
    }),
  );
  for (const [kind, result] of Object.entries(results)) {
    if (result.failed) log(`  ${kind}: ${result.failed} answers were not 2xx: ${JSON.stringify(result.statuses)}`);
  }
  const { empty, full } = results;
  const f = (x) => x.toFixed(2);
  process.stdout.write(
    [
      '',
      `${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}: e2e mix over 200 sandboxes, a file with ${count.toLocaleString('en-US')} sandboxes × ${rows} records against an empty file; ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${loadavg()[0].toFixed(2)} at the end; autocannon ${connections} connections, ${rounds} × ${seconds} s per server, mirrored order`,
      '',
      '| file | req/s | p50 ms | p99 ms | p99 per slice | CPU µs/req |',
      '|---|---:|---:|---:|---|---:|',
      ...kinds.map((k) => `| ${k} | ${Math.round(results[k].rps)} | ${f(results[k].p50)} | ${f(results[k].p99)} | ${results[k].perSlice.map(f).join(', ')} | ${Math.round(results[k].cpuUs)} |`),
      '',
      `full / empty: p50 ${f(full.p50 / empty.p50)}, p99 ${f(full.p99 / empty.p99)} (goal ≤ 1.5), req/s ${f(full.rps / empty.rps)}, CPU µs/req ${f(full.cpuUs / empty.cpuUs)}`,
      '',
    ].join('\n'),
  );
  if (args.profile) {
    for (const kind of kinds) {
      const folder = join(profileDir, kind);
      const file = readdirSync(folder).find((name) => name.endsWith('.cpuprofile'));
      process.stdout.write(`\nCPU profile of the ${kind} file's server:\n${summariseProfile(join(folder, file), 30)}\n`);
    }
    if (args.keep) cpSync(profileDir, args.keep, { recursive: true });
  }
} finally {
  for (const server of servers) await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
