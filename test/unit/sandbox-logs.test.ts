import { describe, expect, it } from 'vitest';
import { noAccountMessage } from '../../src/auth/mail.js';
import { openDatabase } from '../../src/db/open.js';
import { createSearchIndex } from '../../src/db/search-index.js';
import { createAuthStore } from '../../src/engine/auth-store.js';
import { createSandboxStore } from '../../src/engine/sandbox-store.js';
import { createWebhookStore } from '../../src/engine/webhook-store.js';

/**
 * The mailbox and webhook deliveries as logs within `limits.sandboxBytes` (issue 28, defect 10):
 * counted, making the sandbox hold data, and past the bound making room oldest first: finished
 * deliveries, then messages other than the newest; pending deliveries never.
 */
function setup(sandboxBytes: number) {
  const db = openDatabase(':memory:');
  const sandboxes = createSandboxStore(db, createSearchIndex(db.sqlite, []), { limits: { sandboxBytes } });
  const auth = createAuthStore(db, sandboxes);
  const webhooks = createWebhookStore(db, sandboxes);
  const sid = sandboxes.write(() => sandboxes.ensureRow('s'));
  const hook = webhooks.create('s', { url: 'http://127.0.0.1:9/h', events: ['*'], secret: 'x', signature: 'sha256' });
  const column = (sql: string) => db.sqlite.prepare(sql).pluck().all(sid);
  let deliveries = 0;
  const deliver = (body: string) => sandboxes.write(() => webhooks.enqueue([{ id: `del_${++deliveries}`, sid, webhookId: hook.id, event: 'e', body, url: hook.url, signature: 'sha256', secret: null, maxAttempts: 1 }])[0]!);
  const finish = (id: string) =>
    webhooks.recordAttempts([{ job: { id, sid } as never, attempt: { at: Date.now(), statusCode: 200, durationMs: 1, error: null }, next: { status: 'succeeded' } }]);
  const mail = (to: string) => sandboxes.write(() => auth.addMessage(sid, noAccountMessage(to)));
  return { db, sandboxes, sid, column, deliver, finish, mail };
}

describe('logs within the sandbox quota', () => {
  it('counts messages and delivery bodies, and a sandbox holding only them holds data', () => {
    const { sandboxes, sid, deliver, mail } = setup(0);
    expect(sandboxes.holdsData(sid)).toBe(false);
    expect(mail('a@example.com')).toBe(true);
    expect(sandboxes.holdsData(sid)).toBe(true);
    const afterMail = sandboxes.bytesOf(sid);
    expect(afterMail).toBeGreaterThan(100);
    deliver('x'.repeat(1000));
    expect(sandboxes.bytesOf(sid)).toBe(afterMail + 1000);
    // A recount from the rows agrees with the running count.
    expect(sandboxes.write(() => sandboxes.recount(sid))).toBe(afterMail + 1000);
  });

  it('keeps no message to text longer than 254 characters', () => {
    const { sandboxes, sid, mail, column } = setup(0);
    expect(mail(`${'a'.repeat(243)}@example.com`)).toBe(false);
    expect(mail(`${'a'.repeat(242)}@example.com`)).toBe(true);
    expect(column('SELECT seq FROM mailbox WHERE sid = ?')).toEqual([1]);
    expect(sandboxes.holdsData(sid)).toBe(true);
  });

  it('makes room oldest first: finished deliveries, then messages but the newest; pending deliveries never go', () => {
    const { sandboxes, sid, column, deliver, finish, mail } = setup(10_000);
    const first = deliver('a'.repeat(3_000));
    const second = deliver('b'.repeat(3_000));
    finish(first);
    finish(second);
    const pending = deliver('c'.repeat(3_000));
    // 9,000 bytes of deliveries; a message of ~500 bytes still fits, a second delivery does not.
    mail('one@example.com');
    expect(column('SELECT id FROM deliveries WHERE sid = ? ORDER BY n')).toEqual([first, second, pending]);
    deliver('d'.repeat(3_000));
    expect(column('SELECT id FROM deliveries WHERE sid = ? ORDER BY n')).not.toContain(first);
    expect(column('SELECT id FROM deliveries WHERE sid = ? ORDER BY n')).toContain(second);
    expect(sandboxes.bytesOf(sid)).toBeLessThanOrEqual(10_000);

    // Only pending deliveries and messages left: the older messages go, never the newest, never a pending delivery.
    finish(second);
    sandboxes.write(() => sandboxes.fitLogs(sid));
    for (let i = 0; i < 10; i++) mail(`m${i}@example.com`);
    expect(column(`SELECT count(*) FROM deliveries WHERE sid = ? AND status = 'pending'`)).toEqual([2]);
    expect(column('SELECT max(seq) FROM mailbox WHERE sid = ?')).toEqual([11]);
    expect(sandboxes.bytesOf(sid)).toBeLessThanOrEqual(10_000);
    expect(sandboxes.bytesOf(sid)).toBe(sandboxes.write(() => sandboxes.recount(sid)));
  });

  it('a record write takes the logs\' room before it is refused; with none left it is 403', () => {
    const { sandboxes, sid, deliver, finish } = setup(10_000);
    finish(deliver('a'.repeat(6_000)));
    sandboxes.write(() => sandboxes.addBytes(sid, 5_000));
    expect(sandboxes.bytesOf(sid)).toBe(5_000);
    expect(() => sandboxes.write(() => sandboxes.addBytes(sid, 6_000))).toThrow(/limits\.sandboxBytes/);
    expect(sandboxes.bytesOf(sid)).toBe(5_000);
  });
});
