import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useNotesServer } from './helpers/notes-server.js';
import { sandboxClient } from './helpers/server.js';

// Hostile GraphQL input (issue 28, defects 4 and 11): deep variables, deep queries and deep
// literals are GraphQL errors, never a 500; big variable sets leave no memory behind.
const server = useNotesServer();
const fresh = () => sandboxClient(server.api);
const gql = (query: string, variables?: unknown, client = fresh()) => client.post('/graphql', JSON.stringify({ query, variables }));

/** JSON text of arrays nested `depth` deep, built as text (JSON.stringify would overflow). */
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe('GraphQL input bounds', () => {
  it('refuses variables nested 20,000 deep as a GraphQL error', async () => {
    const client = fresh();
    for (const deep of [deepArray(20_000), deepObject(20_000)]) {
      const body = `{"query":"query($v: [String!]) { posts(limit: 1, title: $v) { data { id } } }","variables":{"v":${deep}}}`;
      const answer = await client.post('/graphql', body);
      expect(answer.status).toBeLessThan(500);
      expect(answer.body.errors[0].extensions.code).toBe('VARIABLES_TOO_DEEP');
    }
    // The same through a mutation's JSON input: nothing is written.
    for (const deep of [deepArray(20_000), deepObject(20_000)]) {
      const body = `{"query":"mutation($i: CreateNoteInput!) { createNote(input: $i) { id } }","variables":{"i":{"title":"t","meta":${deep}}}}`;
      const answer = await client.post('/graphql', body);
      expect(answer.status).toBeLessThan(500);
      expect(answer.body.errors[0].extensions.code).toBe('VARIABLES_TOO_DEEP');
    }
    expect((await client.get('/notes')).body.pagination.total).toBe(1);
  });

  it('accepts variables and literals as deep as a record may be', async () => {
    let meta: unknown = 'x';
    for (let level = 0; level < 20; level++) meta = [meta];
    const viaVariables = await gql('mutation($i: CreateNoteInput!) { createNote(input: $i) { id meta } }', { i: { title: 't', meta } });
    expect(viaVariables.body.errors).toBeUndefined();
    expect(viaVariables.body.data.createNote.meta).toEqual(meta);
    const viaLiteral = await gql(`mutation { createNote(input: { title: "t", meta: ${JSON.stringify(meta)} }) { id meta } }`);
    expect(viaLiteral.body.errors).toBeUndefined();
    expect(viaLiteral.body.data.createNote.meta).toEqual(meta);
  });

  it('refuses a query 3,000 fields deep and deep literals as GraphQL errors', async () => {
    const deepFields = `{ ${'posts { '.repeat(3_000)}id${' }'.repeat(3_000)} }`;
    const deepList = `{ posts(id: ${'['.repeat(5_000)}1${']'.repeat(5_000)}) { data { id } } }`;
    const deepLiteral = `mutation { createNote(input: { title: "t", meta: ${'{ a: '.repeat(5_000)}1${' }'.repeat(5_000)} }) { id } }`;
    for (const query of [deepFields, deepList, deepLiteral]) {
      const answer = await gql(query);
      expect(answer.status, query.slice(0, 40)).toBeLessThan(500);
      expect(answer.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
    }
    // Braces inside strings and comments do not count.
    const braces = '{'.repeat(200);
    const quoted = await gql(`{ posts(q: "${braces}", limit: 1) { data { id } } } # ${braces}`);
    expect(quoted.body.errors).toBeUndefined();
    const block = await gql(`{ posts(q: """${braces} \\""" ${braces}""", limit: 1) { data { id } } }`);
    expect(block.body.errors).toBeUndefined();
  });

  it('refuses a document of more than 50,000 tokens while parsing', async () => {
    const answer = await gql(`{ ${'__typename '.repeat(50_001)}}`);
    expect(answer.status).toBeLessThan(500);
    expect(answer.body.errors[0]).toMatchObject({ extensions: { code: 'GRAPHQL_PARSE_FAILED' }, message: expect.stringContaining('50000 tokens') });
  });

  it.runIf(process.platform === 'linux')('keeps no memory for queries with 1 MB of variables', async () => {
    const pid = server.proc.pid!;
    const client = fresh();
    const filler = 'x'.repeat(1000 * 1000);
    const send = (i: number) => gql(`query Q${i % 10}($n: Int, $pad: [String!]) { posts(limit: $n, title: $pad) { data { id } } }`, { n: 1, pad: [`${i}${filler}`] }, client);
    // Warm up (graphql-js and the schema load on the first request), then measure.
    for (let i = 0; i < 3; i++) await send(-i);
    const before = rssBytes(pid);
    // Ten queries, each with eight variable sets of 1 MB: 80 MB if they were kept.
    for (let i = 0; i < 80; i++) expect((await send(i)).status).toBeLessThan(500);
    // Give the server's GC a moment; what stays is what the caches hold.
    await new Promise((wait) => setTimeout(wait, 500));
    const grown = rssBytes(pid) - before;
    expect(grown).toBeLessThan(40 * 1024 * 1024);
  });

  it.runIf(process.platform === 'linux')('keeps a bounded amount of parsed queries, however many distinct ones arrive', { timeout: 120_000 }, async () => {
    const pid = server.proc.pid!;
    const client = fresh();
    // 15 KB of query text, each parsed into about 2.5 MB of syntax tree.
    const send = (i: number) => gql(`query Q${i} { posts(limit: 1) { data { ${'id '.repeat(5_000)}} } }`, undefined, client);
    await send(-1);
    const before = rssBytes(pid);
    for (let i = 0; i < 150; i++) expect((await send(i)).status).toBeLessThan(500);
    // Held, they would weigh 375 MB; the cache keeps about 45 MB, and the heap keeps room for the garbage of parsing.
    expect(rssBytes(pid) - before).toBeLessThan(160 * 1024 * 1024);
  });
});
