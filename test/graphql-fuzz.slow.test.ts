import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useNotesServer } from './helpers/notes-server.js';
import { sandboxClient } from './helpers/server.js';

// Property (issue 28): whatever variables a client sends (deep, big, of any type, where an Int,
// a list, an input object or free JSON is expected), the answer is GraphQL's, never a 500; the
// server stays up and small.
const server = useNotesServer();

/** Queries taking each kind of variable; `$v` is what the fuzz fills. */
const queries = [
  'query($v: Int) { posts(limit: $v) { data { id } } }',
  'query($v: [String!]) { posts(title: $v, limit: 2) { data { id } } }',
  'query($v: ID!) { user(id: $v) { id posts(limit: 1) { id } } }',
  'query($v: String) { posts(q: $v, limit: 2) { data { id } } }',
  'query($v: String) { notes(cursor: $v) { data { id } } }',
  'mutation($v: CreateNoteInput!) { createNote(input: $v) { id meta } }',
  'mutation($v: JSON) { createNote(input: { title: "t", meta: $v }) { id meta } }',
  'mutation($v: UpdateUserInput!) { updateUser(id: 1, input: $v) { id address { geo { lat } } } }',
];

/** JSON text nested `depth` deep, built as text: a value too deep for JSON.stringify to write. */
const nestedText = fc.tuple(fc.integer({ min: 1, max: 30_000 }), fc.constantFrom('[', '{"a":'), fc.constantFrom('1', '"x"', 'null', '[]', '{}')).map(([depth, open, leaf]) => {
  const close = open === '[' ? ']' : '}';
  return open.repeat(depth) + leaf + close.repeat(depth);
});
const odd = fc.oneof(
  fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 + 1, 1e308, -1e308, 0.5, '', '1', 'true', null, true, [], {}, [null], { __proto__: 1 }, { constructor: 'x' }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.integer({ min: 10_000, max: 600_000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 100, max: 20_000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
);
const anyValue = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 6 }) },
  { weight: 2, arbitrary: odd },
  { weight: 2, arbitrary: fc.record({ title: fc.oneof(fc.string(), odd), meta: fc.oneof(fc.jsonValue({ maxDepth: 4 }), odd) }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.record({ address: fc.oneof(odd, fc.record({ geo: fc.oneof(odd, fc.record({ lat: fc.oneof(fc.double(), odd) })) })) }) },
);
/** The request body's text: `variables` as a value, as deep text, or not an object at all. */
const body = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...queries), anyValue).map(([query, v]) => JSON.stringify({ query, variables: { v } })) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...queries), nestedText).map(([query, v]) => `{"query":${JSON.stringify(query)},"variables":{"v":${v}}}`) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...queries), nestedText).map(([query, v]) => `{"query":${JSON.stringify(query)},"variables":${v}}`) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...queries), odd).map(([query, v]) => JSON.stringify({ query, variables: v })) },
);

const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe('GraphQL variables from any value', () => {
  it('never answer 5xx, and leave the server up and small', { timeout: 600_000 }, async () => {
    const client = sandboxClient(server.api);
    const pid = server.proc.pid!;
    await client.post('/graphql', { query: '{ notes { data { id } } }' });
    const before = rssBytes(pid);
    let last = '';
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        last = text.slice(0, 200);
        const answer = await client.post('/graphql', text);
        expect(answer.status, last).toBeLessThan(500);
        // GraphQL's answer: data or errors (graphql-http's own 400s for a malformed request included).
        expect(answer.body === undefined || 'errors' in answer.body || 'data' in answer.body, answer.text.slice(0, 200)).toBe(true);
        if (answer.body?.errors) for (const error of answer.body.errors) expect(error.extensions?.code, JSON.stringify(error)).not.toBe('INTERNAL_ERROR');
      }),
      { numRuns: 400 },
    );
    expect((await client.get('/posts?limit=1')).status).toBe(200);
    expect(server.proc.exitCode).toBeNull();
    if (process.platform === 'linux') expect(rssBytes(pid) - before).toBeLessThan(100 * 1024 * 1024);
  });
});
