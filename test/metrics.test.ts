import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDiscoveryServer, type DiscoveryServer } from './helpers/openapi.js';

let server: DiscoveryServer;
beforeAll(async () => {
  server = await startDiscoveryServer();
});
afterAll(() => server.close());

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses the Prometheus text format (0.0.4) strictly: every sample belongs to a family declared
 * by `# HELP` and `# TYPE` before it, label values are quoted and escaped, values are numbers.
 */
function parsePrometheus(text: string): Sample[] {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped'], line).toContain(meta[3]);
        types.set(meta[2]!, meta[3]!);
      }
      continue;
    }
    // Prometheus reads values with Go's ParseFloat: NaN in any case (prom-client writes `Nan`).
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.]+(?:e[+-]?[0-9]+)?|[Nn]a[Nn]|[+-]Inf)$/.exec(line);
    if (!sample) throw new Error(`line ${index + 1} is not Prometheus text: ${line}`);
    const [, name, labelText = '', value] = sample;
    const family = types.has(name!) ? name! : name!.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(family)) throw new Error(`line ${index + 1}: ${name} has no # TYPE before it`);
    const labels: Record<string, string> = {};
    const rest = labelText.replace(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g, (_, key: string, raw: string) => {
      labels[key] = raw.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
      return '';
    });
    if (rest !== '') throw new Error(`line ${index + 1}: malformed labels ${labelText}`);
    samples.push({ name: name!, labels, value: Number(value) });
  }
  return samples;
}

const scrape = async () => {
  const answer = await server.call('GET', '/metrics');
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await answer.text());
};
const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([key, v]) => s.labels[key] === v))?.value;

describe('GET /metrics', () => {
  it('parses as Prometheus text and counts requests by route pattern and status, never by URL', async () => {
    const sandbox = { headers: { 'x-sandbox': 'metrics-reader' } };
    for (const path of ['/api/v1/posts/1', '/api/v1/posts/2', '/api/v1/posts/3?x=1', '/api/v1/nope/1', '/no/such/route', '/api/v1/users/featured', '/api/v1/custom/notes/7']) {
      await (await server.call('GET', path, sandbox)).arrayBuffer();
    }
    const samples = await scrape();
    const requests = (labels: Record<string, string>) => value(samples, 'mockapi_http_requests_total', labels);
    expect(requests({ method: 'GET', route: '/api/v1/posts/:id', status: '200' })).toBe(3);
    expect(requests({ method: 'GET', route: '/api/v1/:collection/:id', status: '404' })).toBe(1);
    expect(requests({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(requests({ method: 'GET', route: 'GET /users/featured', status: '200' })).toBe(1);
    expect(requests({ method: 'GET', route: '/api/v1/custom/:name/:id', status: '404' })).toBe(1);
    const routes = samples.filter((s) => s.labels.route !== undefined).map((s) => s.labels.route!);
    expect(routes.filter((route) => /\/\d|\?|notes|nope|no\/such/.test(route))).toEqual([]);

    const histogram = (suffix: string, labels: Record<string, string> = {}) =>
      value(samples, `mockapi_http_request_duration_seconds_${suffix}`, { method: 'GET', route: '/api/v1/posts/:id', ...labels });
    expect(histogram('count')).toBe(3);
    expect(histogram('bucket', { le: '+Inf' })).toBe(3);
    expect(histogram('sum')).toBeGreaterThan(0);
    const buckets = samples.filter((s) => s.name === 'mockapi_http_request_duration_seconds_bucket' && s.labels.route === '/api/v1/posts/:id').map((s) => s.value);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    // The process metrics ride along.
    expect(value(samples, 'mockapi_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(value(samples, 'mockapi_nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('counts an answer to a URL refused before routing (malformed percent-encoding) as unmatched', async () => {
    const before = value(await scrape(), 'mockapi_http_requests_total', { method: 'GET', route: 'unmatched', status: '400' }) ?? 0;
    const answer = await server.call('GET', '/api/v1/posts/%E0%A4%A');
    expect(answer.status).toBe(400);
    await answer.arrayBuffer();
    expect(value(await scrape(), 'mockapi_http_requests_total', { method: 'GET', route: 'unmatched', status: '400' })).toBe(before + 1);
  });

  it('counts sandboxes holding data, overlay rows, webhook deliveries and open event streams at scrape time', async () => {
    const before = await scrape();
    expect(value(before, 'mockapi_event_streams_open')).toBe(0);
    const headers = { 'x-sandbox': 'metrics-writer', 'content-type': 'application/json' };
    await server.call('POST', '/api/v1/posts', { headers, body: JSON.stringify({ user_id: 1, title: 'counted', body: 'x' }) });
    await server.call('DELETE', '/api/v1/todos/1', { headers });
    const hook = (await (await server.call('POST', '/api/v1/webhooks', { headers, body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['*'] }) })).json()) as { id: string };
    await server.call('POST', `/api/v1/webhooks/${hook.id}/ping`, { headers });
    const controller = new AbortController();
    const stream = await server.app.fetch(new Request('http://mock.test/api/v1/events/stream', { headers, signal: controller.signal }));

    const after = await scrape();
    expect(value(after, 'mockapi_sandboxes_holding_data')).toBe(value(before, 'mockapi_sandboxes_holding_data')! + 1);
    expect(value(after, 'mockapi_overlay_rows')).toBe(value(before, 'mockapi_overlay_rows')! + 2);
    const deliveries = ['pending', 'succeeded', 'failed'].map((status) => value(after, 'mockapi_webhook_deliveries', { status }));
    expect(deliveries.every((n) => typeof n === 'number')).toBe(true);
    // The ping (the writes came before the subscription).
    expect(deliveries.reduce((a, b) => a! + b!, 0)).toBe(1);
    expect(value(after, 'mockapi_event_streams_open')).toBe(1);
    controller.abort();
    await stream.body?.cancel();
  });
});
