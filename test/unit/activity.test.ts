import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActivityLog, type ActivityEntry, type ActivityLimits } from '../../src/engine/activity.js';

const t0 = 1_800_000_000_000;

function fill(log: ReturnType<typeof createActivityLog>, sandbox: string, count: number, from = 1): void {
  for (let i = from; i < from + count; i++) log.record(sandbox, 'GET', `/api/v1/posts/${i}`, 200, 0.5, t0 + i);
}
const paths = (entries: ActivityEntry[]) => entries.map((entry) => entry.path);
const posts = (...ids: number[]) => ids.map((id) => `/api/v1/posts/${id}`);

describe('activity log ring', () => {
  it('gives back each entry exactly as recorded, newest first', () => {
    const log = createActivityLog({ activity: 10 });
    log.record('a', 'POST', '/api/v1/todos', 201, 12.34, t0);
    log.record('a', 'DELETE', '/api/v1/todos/7', 404, 0, t0 + 5);
    log.record('a', 'PROPFIND', '/elsewhere/x', 405, 1234.56, t0 + 9);
    expect(log.recent('a', t0 + 10)).toEqual([
      { method: 'PROPFIND', path: '/elsewhere/x', status: 405, durationMs: 1234.56, at: t0 + 9 - 1234.56 },
      { method: 'DELETE', path: '/api/v1/todos/7', status: 404, durationMs: 0, at: t0 + 5 },
      { method: 'POST', path: '/api/v1/todos', status: 201, durationMs: 12.34, at: t0 - 12.34 },
    ]);
  });

  it('keeps paths that only look like the API prefix, and non-ASCII ones', () => {
    const log = createActivityLog({ activity: 10 });
    for (const path of ['/api/v1', '/api/v1x/y', '/api/v2/posts', '/', '', '/api/v1/caf\u00e9', '/api/v1/caf\u00e9/\u{1f600}']) log.record('a', 'GET', path, 200, 1, t0);
    expect(paths(log.recent('a', t0))).toEqual(['/api/v1/caf\u00e9/\u{1f600}', '/api/v1/caf\u00e9', '', '/', '/api/v2/posts', '/api/v1x/y', '/api/v1']);
  });

  it('wraps around: the newest `activity` entries, in order, many times over', () => {
    const log = createActivityLog({ activity: 5 });
    fill(log, 'a', 3);
    expect(paths(log.recent('a', t0))).toEqual(posts(3, 2, 1));
    fill(log, 'a', 4, 4);
    expect(paths(log.recent('a', t0))).toEqual(posts(7, 6, 5, 4, 3));
    // Path bytes wrap around their ring too, at every possible offset: each entry reads back whole.
    for (let i = 8; i <= 1007; i++) {
      fill(log, 'a', 1, i);
      expect(paths(log.recent('a', t0))).toEqual(posts(i, i - 1, i - 2, i - 3, i - 4));
    }
  });

  it('keeps every entry whole when its rings grow after they wrapped', () => {
    const limits: ActivityLimits = { activity: 10 };
    const log = createActivityLog(limits);
    // Full by count, so the oldest are dropped and both rings start mid-buffer...
    fill(log, 'a', 15);
    // ...then a long path needs more path bytes, and a raised limit more slots.
    const long = `/api/v1/posts/${'y'.repeat(300)}`;
    log.record('a', 'GET', long, 404, 1, t0);
    expect(paths(log.recent('a', t0))).toEqual([long, ...posts(15, 14, 13, 12, 11, 10, 9, 8, 7)]);
    limits.activity = 20;
    fill(log, 'a', 12, 16);
    expect(paths(log.recent('a', t0))).toEqual([...posts(27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16), long, ...posts(15, 14, 13, 12, 11, 10, 9)]);
  });

  it('follows a lowered and a raised limit (a config reload), before and after the next request', () => {
    const limits: ActivityLimits = { activity: 6 };
    const log = createActivityLog(limits);
    fill(log, 'a', 9);
    limits.activity = 3;
    expect(paths(log.recent('a', t0))).toEqual(posts(9, 8, 7));
    fill(log, 'a', 1, 10);
    expect(paths(log.recent('a', t0))).toEqual(posts(10, 9, 8));
    limits.activity = 5;
    // Entries dropped under the lower limit do not come back; new ones fill up to the new one.
    expect(paths(log.recent('a', t0))).toEqual(posts(10, 9, 8));
    fill(log, 'a', 3, 11);
    expect(paths(log.recent('a', t0))).toEqual(posts(13, 12, 11, 10, 9));
    limits.activity = 0;
    expect(log.recent('a', t0)).toEqual([]);
    fill(log, 'a', 2, 14);
    expect(log.recent('a', t0)).toEqual([]);
    limits.activity = 2;
    fill(log, 'a', 1, 16);
    expect(paths(log.recent('a', t0))).toEqual(posts(16));
  });

  it('forgets a sandbox (its log and counts start over) without touching another', () => {
    const log = createActivityLog({ activity: 4 });
    fill(log, 'a', 6);
    fill(log, 'b', 2);
    log.forget('a');
    expect(log.recent('a', t0)).toEqual([]);
    expect(log.open('a', t0 + 100).requests).toBe(0);
    expect(paths(log.recent('b', t0))).toEqual(posts(2, 1));
    fill(log, 'a', 1, 50);
    expect(paths(log.recent('a', t0))).toEqual(posts(50));
  });

  it('starts an expired sandbox over', () => {
    const log = createActivityLog({ activity: 4, sandboxTtl: 10 });
    fill(log, 'a', 2);
    expect(log.recent('a', t0 + 2 + 10_001)).toEqual([]);
    log.record('a', 'GET', '/api/v1/users', 200, 1, t0 + 20_000);
    expect(paths(log.recent('a', t0 + 20_000))).toEqual(['/api/v1/users']);
  });

  it('cuts a path past 1 KiB of UTF-8 on a character boundary, and long paths take more room than short ones', () => {
    const log = createActivityLog({ activity: 100 });
    log.record('a', 'GET', `/api/v1/${'\u00e9'.repeat(2000)}`, 404, 1, t0);
    const [cut] = log.recent('a', t0);
    expect(cut!.path).toBe(`/api/v1/${'\u00e9'.repeat(511)}`);
    // 100 entries of ~260-byte paths do not fit the ring's 3,200 path bytes: the newest that fit stay.
    for (let i = 0; i < 100; i++) log.record('a', 'GET', `/api/v1/posts/${String(i).padStart(3, '0')}${'x'.repeat(250)}`, 404, 1, t0);
    const kept = log.recent('a', t0);
    expect(kept.length).toBeGreaterThan(5);
    expect(kept.length).toBeLessThan(100);
    expect(kept[0]!.path).toBe(`/api/v1/posts/099${'x'.repeat(250)}`);
    expect(kept.map((entry) => Number(entry.path.slice(14, 17)))).toEqual(Array.from({ length: kept.length }, (_, i) => 99 - i));
  });

  // The ring against a plain array: what it keeps is the newest entries within `activity`
  // entries and max(32 × activity, 1024) path bytes (without the /api/v1 prefix).
  it('matches a plain-array model over random requests, limit changes and forgets', () => {
    const encoder = new TextEncoder();
    const bytes = (path: string) => encoder.encode(path.startsWith('/api/v1/') || path === '/api/v1' ? path.slice(7) : path).length;
    const action = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          kind: fc.constant('record' as const),
          sandbox: fc.constantFrom('a', 'b', 'c'),
          method: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PROPFIND'),
          path: fc.oneof(
            fc.integer({ min: 1, max: 500 }).map((id) => `/api/v1/posts/${id}`),
            fc.string({ maxLength: 300 }).map((rest) => `/api/v1/${rest}`),
            fc.string({ unit: 'grapheme', maxLength: 40 }),
          ),
          status: fc.integer({ min: 100, max: 999 }),
          hundredths: fc.integer({ min: 0, max: 10_000_000 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('limit' as const), activity: fc.integer({ min: 0, max: 12 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), sandbox: fc.constantFrom('a', 'b', 'c') }) },
    );
    fc.assert(
      fc.property(fc.array(action, { maxLength: 300, size: 'max' }), (actions) => {
        const limits: ActivityLimits = { activity: 4 };
        const log = createActivityLog(limits);
        const model = new Map<string, ActivityEntry[]>();
        const trim = (entries: ActivityEntry[], limit: number) => {
          const budget = Math.max(limit * 32, 1024);
          let used = 0;
          let keep = 0;
          for (let i = entries.length - 1; i >= 0 && keep < limit; i--, keep++) {
            used += bytes(entries[i]!.path);
            if (used > budget) break;
          }
          return entries.slice(entries.length - keep);
        };
        let now = t0;
        for (const step of actions) {
          now += 1;
          if (step.kind === 'limit') limits.activity = step.activity;
          else if (step.kind === 'forget') {
            log.forget(step.sandbox);
            model.delete(step.sandbox);
          } else {
            const durationMs = step.hundredths / 100;
            log.record(step.sandbox, step.method, step.path, step.status, durationMs, now);
            const limit = limits.activity!;
            const entries = limit === 0 ? [] : trim(model.get(step.sandbox) ?? [], limit);
            if (limit > 0) entries.push({ method: step.method, path: step.path, status: step.status, durationMs, at: now - durationMs });
            model.set(step.sandbox, trim(entries, Math.max(limit, 1)));
          }
          for (const sandbox of ['a', 'b', 'c']) {
            const expected = (model.get(sandbox) ?? []).slice(-limits.activity!).reverse();
            expect(log.recent(sandbox, now)).toEqual(limits.activity === 0 ? [] : expected);
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
