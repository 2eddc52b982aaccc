import { expect } from 'vitest';
import type { Answer, sandboxClient } from './server.js';

/** Small shared helpers for the black-box HTTP tests: problem+json checks and record factories. */

export type Client = ReturnType<typeof sandboxClient>;

export const COLLECTIONS = ['users', 'posts', 'comments', 'todos'] as const;
export type Collection = (typeof COLLECTIONS)[number];

/** Baseline sizes (given by the issue; ids are 1..N). */
export const BASELINE: Record<Collection, number> = { users: 25, posts: 100, comments: 500, todos: 200 };

export const REQUIRED: Record<Collection, string[]> = {
  users: ['name', 'username', 'email'],
  posts: ['user_id', 'title', 'body'],
  comments: ['post_id', 'name', 'email', 'body'],
  todos: ['user_id', 'title', 'completed'],
};

/** `local-<uuid v4>` */
export const LOCAL_ID = /^local-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const unique = () => crypto.randomUUID().slice(0, 8);

/** A valid body for POST on `collection` (unique username/email for users); overrides win. */
export function newRecord(collection: Collection, overrides: Record<string, unknown> = {}): Record<string, any> {
  const tag = unique();
  const base: Record<Collection, Record<string, unknown>> = {
    users: { name: `Test User ${tag}`, username: `test_${tag}`, email: `test.${tag}@example.test` },
    posts: { user_id: 1, title: `Test post ${tag}`, body: `Body of test post ${tag}` },
    comments: { post_id: 1, name: `Test comment ${tag}`, email: `c.${tag}@example.test`, body: `Body of comment ${tag}` },
    todos: { user_id: 1, title: `Test todo ${tag}`, completed: false },
  };
  return { ...base[collection], ...overrides };
}

/** Asserts an RFC 9457 problem answer with the given status and code, and no leaked internals. */
export function expectProblem(answer: Answer, status: number, code: string): void {
  const context = `${answer.status} ${answer.text.slice(0, 500)}`;
  expect(answer.status, context).toBe(status);
  expect(answer.headers.get('content-type') ?? '', context).toMatch(/^application\/problem\+json\b/i);
  expect(answer.body, context).toBeTypeOf('object');
  expect(answer.body, context).toMatchObject({ status, code });
  expect(answer.body.type, context).toBeTypeOf('string');
  expect(answer.body.title, context).toBeTypeOf('string');
  expect(answer.body.detail, context).toBeTypeOf('string');
  expectNoStack(answer.text);
}

/** A 422 VALIDATION_FAILED whose `errors` name exactly these JSON Pointer paths (one entry each). */
export function expectValidation(answer: Answer, paths: string[]): void {
  expectProblem(answer, 422, 'VALIDATION_FAILED');
  const errors = answer.body.errors;
  expect(Array.isArray(errors), answer.text).toBe(true);
  for (const entry of errors) {
    expect(entry.path, answer.text).toBeTypeOf('string');
    expect(entry.message, answer.text).toBeTypeOf('string');
    expect(entry.message.length, answer.text).toBeGreaterThan(0);
  }
  expect(errors.map((e: { path: string }) => e.path).sort(), answer.text).toEqual([...paths].sort());
}

export function expectNoStack(text: string): void {
  expect(text).not.toMatch(/\n\s+at \S/);
  expect(text).not.toMatch(/\bat (?:async )?\S+ \((?:file:|node:|\/)/);
}

/** The list `total` of a collection as `client` sees it. */
export async function totalOf(client: Client, collection: Collection): Promise<number> {
  const answer = await client.get(`/${collection}?limit=1`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.pagination.total;
}

/** The totals of all four collections. */
export async function totals(client: Client): Promise<Record<Collection, number>> {
  const entries = await Promise.all(COLLECTIONS.map(async (c) => [c, await totalOf(client, c)] as const));
  return Object.fromEntries(entries) as Record<Collection, number>;
}

/** Every record of a collection in list order (walks pages of 200). */
export async function listAll(client: Client, collection: Collection): Promise<any[]> {
  const all: any[] = [];
  for (let page = 1; ; page++) {
    const answer = await client.get(`/${collection}?limit=200&page=${page}`);
    expect(answer.status, answer.text).toBe(200);
    all.push(...answer.body.data);
    if (!answer.body.pagination.hasNextPage) return all;
  }
}

/** POSTs a valid record and returns it (fails the test unless 200). */
export async function create(client: Client, collection: Collection, overrides: Record<string, unknown> = {}): Promise<any> {
  const answer = await client.post(`/${collection}`, newRecord(collection, overrides));
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

/** A request without the sandbox client (no cookie unless given), returning the same shape. */
export async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}
