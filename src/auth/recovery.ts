import { randomBytes } from 'node:crypto';
import { invalidResetToken } from '../errors.js';
import { noAccountMessage, personaMessage, resetMessage } from './mail.js';
import { hashPassword } from './passwords.js';
import type { AuthCore } from './service.js';

/**
 * Password recovery through the sandbox mailbox (contract section 7): each operation one
 * transaction. Only users' passwords are reset this way; personas' come from the config.
 */
export function createRecovery(core: AuthCore) {
  const { engine, accounts, store } = core;

  return {
    /** Puts a message in the sandbox mailbox: a single-use token and a link to `page` (`auth.resetUrl`) for a user's address, none otherwise (no enumeration). */
    forgotPassword(sandbox: string, email: string, page: URL): void {
      const account = accounts.find(sandbox, email);
      const known = account && String(account.user.email).toLowerCase() === email.toLowerCase();
      const resettable = known && account.kind === 'user';
      const token = randomBytes(24).toString('base64url');
      const message = resettable
        ? resetMessage(email, String(account.user.name ?? account.user.username), token, page)
        : known
          ? personaMessage(email)
          : noAccountMessage(email);
      engine.sandboxes.write(() => {
        const sid = engine.sandboxes.ensureRow(sandbox);
        if (resettable) store.putResetToken(sid, account.id, token);
        store.addMessage(sid, message);
      });
    },

    /**
     * Uses a reset token: sets the user's password in the sandbox and ends the user's sessions
     * (every refresh family, and their access tokens); a used, unknown or superseded token is 400.
     */
    async resetPassword(sandbox: string, token: string, password: string): Promise<void> {
      const sid = engine.sandboxes.sidOf(sandbox);
      const userId = store.resetTokenUser(sid, token);
      if (!userId || accounts.byId(sandbox, userId)?.kind !== 'user') throw invalidResetToken();
      const hash = await hashPassword(password);
      engine.sandboxes.write(() => {
        if (!store.useResetToken(sid, token)) throw invalidResetToken();
        store.setPassword(sid, userId, hash);
        store.revokeUser(sid, userId);
      });
      engine.sandboxChanged(sandbox);
    },

    /** A page of the mailbox, newest first, as one JSON array text, and the count. */
    mailbox: (sandbox: string, limit: number, offset: number) => store.messages(engine.sandboxes.sidOf(sandbox), limit, offset),
  };
}
