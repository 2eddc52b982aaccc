import type { OpenDatabase } from '../db/open.js';
import { isMailAddress, type MailMessage } from '../auth/mail.js';
import type { SandboxStore } from './sandbox-store.js';

/** Refresh token states (`refresh_tokens.state`). */
export const LIVE = 0;
export const CONSUMED = 1;
export const REVOKED = 2;

export interface RefreshRow {
  family: string;
  sid: number;
  userId: string;
  state: number;
}

/** Messages a sandbox's mailbox keeps (the oldest go first). */
export const maxMessagesPerSandbox = 200;

/**
 * What authentication keeps per sandbox, on file (so the CLI, a restart and other processes see
 * it): passwords set in the sandbox, the logged-in user, persona profiles, refresh-token families,
 * password-reset tokens and the mailbox. Callers run writes inside `sandboxes.write`.
 */
export function createAuthStore(db: OpenDatabase, sandboxes: SandboxStore) {
  const { sqlite } = db;
  const statements = {
    password: sqlite.prepare(`SELECT hash FROM auth_passwords WHERE sid = ? AND user_id = ?`).pluck(),
    setPassword: sqlite.prepare(`INSERT OR REPLACE INTO auth_passwords (sid, user_id, hash) VALUES (?, ?, ?)`),
    session: sqlite.prepare(`SELECT user_id FROM auth_sessions WHERE sid = ?`).pluck(),
    setSession: sqlite.prepare(`INSERT OR REPLACE INTO auth_sessions (sid, user_id) VALUES (?, ?)`),
    clearSession: sqlite.prepare(`DELETE FROM auth_sessions WHERE sid = ?`),
    profile: sqlite.prepare(`SELECT doc FROM auth_profiles WHERE sid = ? AND user_id = ?`).pluck(),
    setProfile: sqlite.prepare(`INSERT OR REPLACE INTO auth_profiles (sid, user_id, doc) VALUES (?, ?, ?)`),
    issue: sqlite.prepare(`INSERT INTO refresh_tokens (jti, family, sid, user_id, state, expires_at) VALUES (?, ?, ?, ?, ${LIVE}, ?)`),
    refresh: sqlite.prepare(`SELECT family, sid, user_id AS userId, state FROM refresh_tokens WHERE jti = ?`),
    consume: sqlite.prepare(`UPDATE refresh_tokens SET state = ${CONSUMED} WHERE jti = ? AND state = ${LIVE}`),
    // Consumed tokens stay consumed: one presented again is still recognised as reuse.
    revokeFamily: sqlite.prepare(`UPDATE refresh_tokens SET state = ${REVOKED} WHERE family = ? AND state = ${LIVE}`),
    familyRevoked: sqlite.prepare(`SELECT 1 FROM refresh_tokens WHERE family = ? AND state = ${REVOKED} LIMIT 1`).pluck(),
    revokeUser: sqlite.prepare(`UPDATE refresh_tokens SET state = ${REVOKED} WHERE sid = ? AND user_id = ? AND state = ${LIVE}`),
    pruneRefresh: sqlite.prepare(`DELETE FROM refresh_tokens WHERE sid = ? AND expires_at < ?`),
    putResetToken: sqlite.prepare(`INSERT OR REPLACE INTO reset_tokens (sid, user_id, token, used, created_at) VALUES (?, ?, ?, 0, ?)`),
    resetToken: sqlite.prepare(`SELECT user_id AS userId, used FROM reset_tokens WHERE sid = ? AND token = ?`),
    useResetToken: sqlite.prepare(`UPDATE reset_tokens SET used = 1 WHERE sid = ? AND token = ? AND used = 0`),
    addMessage: sqlite.prepare(`INSERT INTO mailbox (sid, seq, doc) SELECT ?, coalesce(max(seq), 0) + 1, ? FROM mailbox WHERE sid = ?`),
    trimMailbox: sqlite.prepare(
      `DELETE FROM mailbox WHERE sid = ? AND seq <= (SELECT max(seq) FROM mailbox WHERE sid = ?) - ${maxMessagesPerSandbox} RETURNING length(CAST(doc AS BLOB))`,
    ).pluck(),
    messages: sqlite.prepare(
      `SELECT '[' || coalesce(group_concat(doc, ','), '') || ']' FROM (SELECT doc FROM mailbox WHERE sid = ? ORDER BY seq DESC LIMIT (? + 0) OFFSET (? + 0))`,
    ).pluck(),
    countMessages: sqlite.prepare(`SELECT count(*) FROM mailbox WHERE sid = ?`).pluck(),
    keepSecret: sqlite.prepare(`INSERT OR IGNORE INTO meta (key, value) VALUES ('auth_secret', ?)`),
    secret: sqlite.prepare(`SELECT value FROM meta WHERE key = 'auth_secret'`).pluck(),
  };

  return {
    /**
     * The token key kept in the file: made once (`fresh()`) by the first server on it, so tokens
     * survive a restart and every process on the file signs alike.
     */
    storedSecret(fresh: () => string): string {
      const kept = statements.secret.get() as string | undefined;
      if (kept) return kept;
      statements.keepSecret.run(fresh());
      return statements.secret.get() as string;
    },

    /** A password hash set in the sandbox for this user, if any. */
    password: (sid: number, userId: string) => (sid ? (statements.password.get(sid, userId) as string | undefined) : undefined),
    setPassword: (sid: number, userId: string, hash: string) => void statements.setPassword.run(sid, userId, hash),

    /** The user logged in with the sandbox's cookie, if any. */
    session: (sid: number) => (sid ? (statements.session.get(sid) as string | undefined) : undefined),
    setSession: (sid: number, userId: string) => void statements.setSession.run(sid, userId),
    clearSession: (sid: number) => void statements.clearSession.run(sid),

    /** A persona's profile changes in the sandbox (JSON text), if any. */
    profile: (sid: number, userId: string) => (sid ? (statements.profile.get(sid, userId) as string | undefined) : undefined),
    setProfile: (sid: number, userId: string, doc: string) => void statements.setProfile.run(sid, userId, doc),

    /** Records an issued refresh token; expired ones of the sandbox are forgotten meanwhile. */
    issueRefresh(jti: string, family: string, sid: number, userId: string, expiresAt: number): void {
      statements.pruneRefresh.run(sid, Math.floor(Date.now() / 1000));
      statements.issue.run(jti, family, sid, userId, expiresAt);
    },
    refreshToken: (jti: string) => statements.refresh.get(jti) as RefreshRow | undefined,
    /** Marks a live token consumed; false when it was not live (consumed or revoked already). */
    consumeRefresh: (jti: string) => statements.consume.run(jti).changes === 1,
    revokeFamily: (family: string) => void statements.revokeFamily.run(family),
    /** Whether a family was revoked (its access tokens end with it). */
    familyRevoked: (family: string) => statements.familyRevoked.get(family) !== undefined,
    /** Revokes every refresh family of a user in a sandbox (after a password reset). */
    revokeUser: (sid: number, userId: string) => void statements.revokeUser.run(sid, userId),

    /** Stores the user's one live reset token, superseding an earlier one. */
    putResetToken: (sid: number, userId: string, token: string) => void statements.putResetToken.run(sid, userId, token, Date.now()),
    /** The user a live (unused, not superseded) reset token belongs to; undefined otherwise. */
    resetTokenUser(sid: number, token: string): string | undefined {
      const row = sid ? (statements.resetToken.get(sid, token) as { userId: string; used: number } | undefined) : undefined;
      return row && !row.used ? row.userId : undefined;
    },
    /** Uses a reset token up; false when it was no longer live. */
    useResetToken: (sid: number, token: string) => statements.useResetToken.run(sid, token).changes === 1,

    /**
     * Adds a message to the sandbox's mailbox, keeping the newest `maxMessagesPerSandbox`; its
     * bytes count in the sandbox's (sandbox-store.ts). A message to a text that cannot be an
     * address (longer than 254 characters) is not kept: false. Call inside `sandboxes.write`.
     */
    addMessage(sid: number, message: MailMessage): boolean {
      if (!isMailAddress(message.to)) return false;
      const doc = JSON.stringify(message);
      statements.addMessage.run(sid, doc, sid);
      const trimmed = (statements.trimMailbox.all(sid, sid) as number[]).reduce((sum, bytes) => sum + bytes, 0);
      sandboxes.addLogBytes(sid, Buffer.byteLength(doc) - trimmed);
      return true;
    },
    /** A page of the mailbox, newest first, as one JSON array text, and the count. */
    messages(sid: number, limit: number, offset: number): { json: string; total: number } {
      if (!sid) return { json: '[]', total: 0 };
      return { json: statements.messages.get(sid, limit, offset) as string, total: statements.countMessages.get(sid) as number };
    },
  };
}

export type AuthStore = ReturnType<typeof createAuthStore>;
