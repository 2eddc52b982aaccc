import { afterAll, beforeAll, expect } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { expectProblem, request } from './problems.js';
import { startServer, type Answer, type RunningServer } from './server.js';

/** Helpers for the auth tests: logging in over HTTP, Bearer requests, 401 checks. */

export const json = { 'content-type': 'application/json' };
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  refresh_expires_in: number;
  user: Record<string, any>;
  role: string;
  scopes: string[];
}

/** POSTs JSON to `${api}${path}` with optional headers (no cookie unless given). */
export function post(api: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return request(`${api}${path}`, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) });
}

/** A request with a Bearer token only (no cookie). */
export function withToken(api: string, method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const init: RequestInit = { method, headers: { ...bearer(token), ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  return request(`${api}${path}`, init);
}

/** Logs in (in the sandbox `sandbox` when given, through its cookie) and returns the token answer; fails unless 200. */
export async function login(api: string, username: string, options: { sandbox?: string; password?: string; body?: Record<string, unknown>; headers?: Record<string, string> } = {}): Promise<TokenPair> {
  const headers: Record<string, string> = { ...(options.sandbox ? { cookie: `svc_identity=${options.sandbox}` } : {}), ...options.headers };
  const answer = await post(api, '/auth/login', { username, password: options.password ?? 'password', ...options.body }, headers);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

/** A 401 problem with this code and `WWW-Authenticate: Bearer` (with `error="invalid_token"` when a token was presented). */
export function expect401(answer: Answer, code: string, tokenPresented: boolean): void {
  expectProblem(answer, 401, code);
  const challenge = answer.headers.get('www-authenticate') ?? '';
  expect(challenge, answer.text).toMatch(/^Bearer\b/);
  if (tokenPresented) expect(challenge).toMatch(/^Bearer error="invalid_token"/);
  else expect(challenge).not.toMatch(/invalid_token/);
}

/** The decoded header and claims of a token. */
export function decode(token: string) {
  return { header: decodeProtectedHeader(token), claims: decodeJwt(token) as Record<string, any> };
}

export const unique = () => crypto.randomUUID().slice(0, 8);

/**
 * One server for the calling test file started with a config object (beforeAll), removed after
 * (afterAll). Reads through like `useServer`.
 */
export function useConfiguredServer(config: Record<string, unknown>, args: string[] = []): RunningServer {
  let current: RunningServer | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mockapi-auth-'));
    const file = join(dir, 'mockapi.config.json');
    writeFileSync(file, JSON.stringify(config));
    current = await startServer({ args: ['--config', file, ...args] });
  });
  afterAll(async () => {
    await current?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return new Proxy({} as RunningServer, {
    get: (_target, key) => {
      if (!current) throw new Error('the test server has not started');
      return current[key as keyof RunningServer];
    },
  });
}
