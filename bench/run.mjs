// The benchmark (`npm run bench`): the real server against a raw node:http reference serving the
// same bytes, scenario by scenario; prints the table and writes bench/RESULTS.md.
//   node bench/run.mjs [--quick] [--duration <s>] [--slices <n>] [--connections <n>] [--only <text>] [--profile <text>]
// --quick: a short smoke run (500 busy sandboxes, 1 s per subject) that leaves RESULTS.md alone.
// --only: scenarios whose name contains the text. --profile: runs the matching scenario against
// a server started with --cpu-prof (no reference) and prints its top self-time functions.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { combine, load } from './load.mjs';
import { watchOthers } from './machine-load.mjs';
import { summariseProfile } from './profile-summary.mjs';
import { formatTable, writeResults } from './report.mjs';
import { measureReset } from './reset-timing.mjs';
import { benchConfig, buildScenarios, oneCookie } from './scenarios.mjs';
import { seedSandboxes } from './seed-sandboxes.mjs';
import { fetchAnswerFrom, startMockapi, startReference } from './servers.mjs';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    duration: { type: 'string' },
    connections: { type: 'string', default: '10' },
    slices: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'string' },
  },
});
const quick = args.quick;
const seconds = Number(args.duration ?? (quick ? 1 : 6));
const warmupSeconds = quick ? 0.3 : 1;
const connections = Number(args.connections);
/** Each subject's time is cut into this many slices, run A B B A A B B A ... (an even number). */
const slices = Math.max(2, Math.round(Number(args.slices ?? (quick ? 2 : 6)) / 2) * 2);
const sandboxCount = quick ? 500 : 5000;
const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const log = (line) => process.stderr.write(`${line}\n`);

const dir = mkdtempSync(join(tmpdir(), 'mockapi-bench-'));
const oneDb = join(dir, 'one.db');
const busyDb = join(dir, 'busy.db');
const busyKeys = Array.from({ length: sandboxCount }, (_, i) => `busy-${String(i).padStart(4, '0')}`);
const servers = [];

try {
  const loadBefore = loadavg()[0];
  log(`seeding: 1 sandbox, then ${sandboxCount} sandboxes × 20 overlay rows ...`);
  await seedSandboxes(oneDb, [oneCookie]);
  const seedMs = await seedSandboxes(busyDb, busyKeys);
  log(`  seeded in ${(seedMs / 1000).toFixed(1)} s`);

  const resetTiming = args.profile ? undefined : await measureReset(busyDb, quick ? 50 : 300);

  const profileDir = join(dir, 'profiles');
  const nodeArgs = (name) => (args.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`] : []);
  writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify(benchConfig));
  const reference = await startReference();
  servers.push(reference);
  const one = await startMockapi({ db: oneDb, cwd: dir, nodeArgs: nodeArgs('one') });
  servers.push(one);
  const busy = await startMockapi({ db: busyDb, cwd: dir, nodeArgs: nodeArgs('busy') });
  servers.push(busy);
  const urls = { one: one.url, busy: busy.url };

  const subjectOf = (kind) => ({
    kind,
    url: kind === 'reference' ? reference.url : urls[kind],
    cookie: kind === 'busy' ? () => busyKeys[Math.floor(Math.random() * busyKeys.length)] : () => oneCookie,
  });

  let scenarios = buildScenarios({ busyKeys });
  const filter = args.profile ?? args.only;
  if (filter) scenarios = scenarios.filter((s) => s.name.includes(filter));
  if (!scenarios.length) throw new Error(`no scenario name contains "${filter}"`);
  if (args.profile) scenarios = scenarios.slice(0, 1);

  const rows = [];
  for (const scenario of scenarios) {
    log(`${scenario.name} ...`);
    const answers = await scenario.capture(fetchAnswerFrom(urls[scenario.captureOn ?? 'one']));
    await reference.answer(answers);
    const subjects = [...(args.profile ? [] : ['reference']), ...scenario.subjects].map(subjectOf);
    const runs = new Map(subjects.map((s) => [s.kind, []]));
    for (const subject of subjects) {
      if (scenario.prime && subject.kind === 'busy') {
        let next = 0;
        const inTurn = { ...subject, cookie: () => busyKeys[next++ % busyKeys.length] };
        await load(subject.url, scenario.requests(inTurn, true), { connections, amount: busyKeys.length });
      }
      await load(subject.url, scenario.requests(subject, true), { connections, duration: warmupSeconds });
    }
    // Slices in mirrored order (A B B A ...), so drift in the machine's load falls on all alike.
    const order = Array.from({ length: slices / 2 }, () => [...subjects, ...[...subjects].reverse()]).flat();
    const slice = scenario.amount ? { amount: Math.floor(scenario.amount / slices) } : { duration: seconds / slices };
    const others = watchOthers(() => [process.pid, ...servers.map((s) => s.pid)]);
    for (const subject of order) {
      runs.get(subject.kind).push(await load(subject.url, scenario.requests(subject, false), { connections, ...slice }));
    }
    const othersCpu = others.stop();
    const results = Object.fromEntries([...runs].map(([kind, list]) => [kind, combine(list)]));
    for (const [kind, result] of Object.entries(results)) {
      if (result.failed) log(`  ${kind}: ${result.failed} answers were not 2xx: ${JSON.stringify(result.statuses)}`);
    }
    for (const kind of scenario.subjects) rows.push({ ...rowOf(scenario, kind, results), others: othersCpu });
  }

  if (resetTiming) {
    rows.push({
      name: `reset server-side (in-process, ${resetTiming.purged} rows)`,
      p50: resetTiming.median,
      p99: resetTiming.p99,
      target: 'median < 1 ms',
      result: resetTiming.median < 1 ? 'pass' : 'miss',
    });
  }

  for (const server of servers.splice(0)) await server.stop();

  const table = formatTable(rows);
  process.stdout.write(`\n${table}\n`);

  if (args.profile) {
    for (const kind of scenarios[0].subjects) {
      const folder = join(profileDir, kind);
      const file = readdirSync(folder).find((f) => f.endsWith('.cpuprofile'));
      process.stdout.write(`\nCPU profile of the ${kind} server, ${scenarios[0].name}:\n${summariseProfile(join(folder, file))}\n`);
    }
  } else if (!quick && !args.only) {
    const cpu = cpus();
    writeResults(resultsFile, {
      date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      code: describeCode(),
      machine: `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, load average ${loadBefore.toFixed(2)} at the start and ${loadavg()[0].toFixed(2)} at the end`,
      settings: `autocannon, ${connections} connections, no pipelining; per subject ${warmupSeconds} s warm-up then ${seconds} s measured (${slices} slices, A B B A ...); "others' CPU" is the cores used by processes outside the benchmark while a scenario measured (of ${cpus().length}); busy server: ${sandboxCount.toLocaleString('en-US')} sandboxes × 20 overlay rows, seeded in ${(seedMs / 1000).toFixed(1)} s; reset: ${sandboxCount.toLocaleString('en-US')} requests per subject; in-process reset: ${resetTiming.rounds} rounds`,
      table,
    });
    log(`\nwritten: ${resultsFile}`);
  }
} finally {
  for (const server of servers) await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** One table row: the subject's figures, its ratio to the reference, and the target's verdict. */
function rowOf(scenario, kind, results) {
  const own = results[kind];
  const ref = results.reference;
  const paired = scenario.subjects.length > 1 && kind === 'one';
  const row = {
    name: paired ? `list page, 1 sandbox (paired with the next row)${scenario.name.endsWith('uncached') ? ', uncached' : ''}` : scenario.name,
    rps: own.rps,
    p50: own.p50,
    p99: own.p99,
    refRps: ref?.rps,
    ratio: ref ? own.rps / ref.rps : undefined,
    failed: own.failed,
  };
  const target = scenario.target;
  if (target?.kind === 'ratio' && row.ratio !== undefined) {
    row.target = `ratio ≥ ${target.min}`;
    row.result = row.ratio >= target.min ? 'pass' : 'miss';
  } else if (target?.kind === 'p50' && kind === target.of) {
    const factor = own.p50 / results[target.vs].p50;
    row.target = `p50 ≤ ${target.max}× paired (${factor.toFixed(2)}×)`;
    row.result = factor <= target.max ? 'pass' : 'miss';
  }
  return row;
}

/** The commit measured, and whether the working tree differed from it (dist/ is built from it). */
function describeCode() {
  try {
    const git = (...a) => execFileSync('git', a, { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' }).trim();
    const changed = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).length;
    return `commit ${git('rev-parse', '--short', 'HEAD')}${changed ? `, plus uncommitted changes to ${changed} file(s) under src/` : ''}`;
  } catch {
    return 'not a git checkout';
  }
}
