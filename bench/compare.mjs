// Two builds in one run: another commit ("ref", built in a temporary git worktree) against the
// working tree ("work"), row by row, with a raw node:http server answering the same bytes ("raw")
// as the machine's pulse. The three take turns in mirrored slices (raw ref work work ref raw ...),
// so a change in the machine's load falls on all alike: read work/ref, and each against raw.
//   node bench/compare.mjs <ref> [--duration <s per slice, 3>] [--long] [--rounds <n, 2>]
//     [--connections <n>] [--only <text>] [--profile <text>] [--no-build]
// --long: 5 s slices. --only: rows whose name contains the text. --profile: one row against both
// servers started with --cpu-prof (no raw row), then the top self-time functions of each.
// --no-build: use the working tree's dist/ as it is. --keep <dir>: keep the profiles there.
// Besides req/s, each subject's CPU time per answered request (from /proc, the server process
// only): on a machine shared with other work, req/s follows the share of the cores each slice got,
// while CPU per request stays close to the code's own cost.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { combine, load } from './load.mjs';
import { processTicks, ticksPerSecond } from './machine-load.mjs';
import { summariseProfile } from './profile-summary.mjs';
import { benchConfig, buildScenarios, oneCookie } from './scenarios.mjs';
import { seedSandboxes } from './seed-sandboxes.mjs';
import { fetchAnswerFrom, startMockapi, startReference } from './servers.mjs';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    duration: { type: 'string' },
    long: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    only: { type: 'string' },
    profile: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    keep: { type: 'string' },
  },
});
const refName = positionals[0];
if (!refName) {
  process.stderr.write('usage: node bench/compare.mjs <ref> [--duration <s>] [--long] [--rounds <n>] [--only <text>] [--profile <text>]\n');
  process.exit(2);
}
const seconds = Number(args.duration ?? (args.long ? 5 : 3));
const rounds = Math.max(1, Number(args.rounds));
const connections = Number(args.connections);
/** The rows the issue compares, by their names in bench/scenarios.mjs. */
const rowNames = [
  'list page',
  'GraphQL list page',
  'get by id',
  'search',
  'list page, uncached',
  'get by id, uncached',
  'search, uncached',
  'create in a fresh sandbox',
  'e2e mix, 200 sandboxes',
];
const root = fileURLToPath(new URL('..', import.meta.url));
const log = (line) => process.stderr.write(`${line}\n`);
const git = (cwd, ...a) => execFileSync('git', a, { cwd, encoding: 'utf8' }).trim();

const dir = mkdtempSync(join(tmpdir(), 'mockapi-compare-'));
const refTree = join(dir, 'ref');
const mixKeys = Array.from({ length: 200 }, (_, i) => `mix-${String(i).padStart(3, '0')}`);
const servers = [];

try {
  const refCommit = git(root, 'rev-parse', '--short', refName);
  log(`building ${refName} (${refCommit}) in ${refTree} ...`);
  git(root, 'worktree', 'add', '--detach', refTree, refCommit);
  symlinkSync(join(root, 'node_modules'), join(refTree, 'node_modules'));
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: refTree, stdio: ['ignore', 'ignore', 'inherit'] });
  if (!args['no-build']) {
    log('building the working tree ...');
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const workCode = `${git(root, 'rev-parse', '--short', 'HEAD')}${git(root, 'status', '--porcelain', '--', 'src').length ? ' + uncommitted changes' : ''}`;

  // Each build writes its own file with its own engine: the sandbox 'one' and the mix's 200, 20 rows each.
  writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify(benchConfig));
  const sides = { ref: { tree: refTree }, work: { tree: root } };
  for (const [name, side] of Object.entries(sides)) {
    side.db = join(dir, `${name}.db`);
    await seedSandboxes(side.db, [oneCookie, ...mixKeys], 1, join(side.tree, 'dist'));
  }

  const profileDir = join(dir, 'profiles');
  const nodeArgs = (name) => (args.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`] : []);
  for (const [name, side] of Object.entries(sides)) {
    side.server = await startMockapi({ db: side.db, cwd: dir, cli: join(side.tree, 'bin/mockapi.mjs'), nodeArgs: nodeArgs(name) });
    servers.push(side.server);
  }
  const raw = await startReference();
  servers.push(raw);
  const urlOf = { raw: raw.url, ref: sides.ref.server.url, work: sides.work.server.url };
  const pidOf = { raw: raw.pid, ref: sides.ref.server.pid, work: sides.work.server.pid };

  const filter = args.profile ?? args.only;
  const scenarios = buildScenarios({ busyKeys: mixKeys, mixKeys });
  let rows = rowNames.map((name) => scenarios.find((s) => s.name === name));
  if (filter) rows = rows.filter((s) => s.name.includes(filter));
  if (args.profile) rows = rows.slice(0, 1);
  if (!rows.length) throw new Error(`no row name contains "${filter}"`);

  const kinds = args.profile ? ['ref', 'work'] : ['raw', 'ref', 'work'];
  const table = [];
  for (const row of rows) {
    log(`${row.name} ...`);
    const cookie = row.subjects.includes('busy') ? () => mixKeys[Math.floor(Math.random() * mixKeys.length)] : () => oneCookie;
    const subjectOf = (kind) => ({ kind, url: urlOf[kind], cookie });
    await raw.answer(await row.capture(fetchAnswerFrom(urlOf.work)));
    const runs = new Map(kinds.map((k) => [k, []]));
    const cpu = Object.fromEntries(kinds.map((k) => [k, 0]));
    for (const kind of kinds) await load(urlOf[kind], row.requests(subjectOf(kind), true), { connections, duration: 1 });
    const order = Array.from({ length: rounds }, (_, i) => (i % 2 ? [...kinds].reverse() : kinds)).flat();
    for (const kind of order) {
      const ticks = processTicks(pidOf[kind]);
      const result = await load(urlOf[kind], row.requests(subjectOf(kind), false), { connections, duration: seconds });
      cpu[kind] += processTicks(pidOf[kind]) - ticks;
      runs.get(kind).push(result);
    }
    const results = Object.fromEntries(
      [...runs].map(([kind, list]) => {
        const combined = combine(list);
        return [kind, { ...combined, cpuUs: (cpu[kind] / ticksPerSecond / (combined.requests + combined.failed)) * 1e6 }];
      }),
    );
    for (const [kind, result] of Object.entries(results)) {
      if (result.failed) log(`  ${kind}: ${result.failed} answers were not 2xx: ${JSON.stringify(result.statuses)}`);
    }
    table.push({ name: row.name, ...results });
    log(`  ref ${Math.round(results.ref.rps)}  work ${Math.round(results.work.rps)}${results.raw ? `  raw ${Math.round(results.raw.rps)}` : ''} req/s`);
  }
  for (const server of servers.splice(0)) await server.stop();

  const heading = `${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}: ref ${refName} (${refCommit}) against work ${workCode}; ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${loadavg()[0].toFixed(2)} at the end; autocannon ${connections} connections, ${rounds} × ${seconds} s per subject and row, mirrored order`;
  process.stdout.write(`\n${heading}\n\n${formatComparison(table)}\n`);
  const rest = table.find((row) => row.name === 'list page');
  const graphql = table.find((row) => row.name === 'GraphQL list page');
  if (rest && graphql) process.stdout.write(`\n${formatGraphqlRatio(rest, graphql)}\n`);
  if (args.profile) {
    for (const kind of ['ref', 'work']) {
      const folder = join(profileDir, kind);
      const file = readdirSync(folder).find((f) => f.endsWith('.cpuprofile'));
      process.stdout.write(`\nCPU profile of ${kind}, ${rows[0].name}:\n${summariseProfile(join(folder, file), 30)}\n`);
    }
    if (args.keep) cpSync(profileDir, args.keep, { recursive: true });
  }
} finally {
  for (const server of servers) await server.stop();
  try {
    git(root, 'worktree', 'remove', '--force', refTree);
  } catch {
    // never added (the ref did not resolve)
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Rows {name, ref, work, raw?} of combined results, as a markdown table. */
function formatComparison(table) {
  const n = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '—');
  const r = (x) => (Number.isFinite(x) ? x.toFixed(2) : '—');
  const ms = (x) => (Number.isFinite(x) ? x.toFixed(2) : '—');
  const header = ['row', 'ref req/s', 'work req/s', 'work / ref', 'raw req/s', 'ref / raw', 'work / raw', 'p99 ref ms', 'p99 work ms', 'CPU µs/req ref', 'work', 'raw'];
  const lines = table.map(({ name, ref, work, raw }) => [
    name,
    n(ref.rps),
    n(work.rps),
    r(work.rps / ref.rps),
    n(raw?.rps),
    r(ref.rps / raw?.rps),
    r(work.rps / raw?.rps),
    ms(ref.p99),
    ms(work.p99),
    n(ref.cpuUs),
    n(work.cpuUs),
    n(raw?.cpuUs),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => `${'-'.repeat(w + 1)}${i ? ':' : '-'}`).join('|')}|`, ...lines.map(line)].join('\n');
}

/**
 * The GraphQL list page as a ratio of the same REST page (issue 31), per build: req/s of the two
 * rows each taken relative to its raw slices (they ran at different moments), and CPU µs/req.
 */
function formatGraphqlRatio(rest, graphql) {
  const line = (kind) => {
    const rps = graphql.raw ? graphql[kind].rps / graphql.raw.rps / (rest[kind].rps / rest.raw.rps) : graphql[kind].rps / rest[kind].rps;
    return `| ${kind} | ${rps.toFixed(2)} | ${(rest[kind].cpuUs / graphql[kind].cpuUs).toFixed(2)} | ${Math.round(rest[kind].cpuUs)} | ${Math.round(graphql[kind].cpuUs)} |`;
  };
  return ['| GraphQL list page / REST list page | req/s (each / raw) | CPU per request | REST CPU µs/req | GraphQL CPU µs/req |', '|---|---:|---:|---:|---:|', line('ref'), line('work')].join('\n');
}
