import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A message of the sandbox mailbox, as `GET /api/v1/inbox/messages` lists it (contract section 7). */
export interface MailMessage {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  token: string | null;
  created_at: string;
}

/** RFC 5321 (4.5.3.1.3 with its errata): a forward path holds at most 254 characters of address. */
export const maxAddressLength = 254;

/**
 * Whether mail can go to this text at all. Longer text is no address: the forgot-password
 * answer stays the same (no account enumeration), and nothing is stored, so a 900 KB "address"
 * cannot put megabytes in the mailbox.
 */
export const isMailAddress = (to: string) => to.length <= maxAddressLength;

const template = readFileSync(new URL('../../templates/reset-password.html', import.meta.url), 'utf8');
const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The password-reset message: a single-use token and a link to `page` ending in `token=<token>`. */
export function resetMessage(to: string, name: string, token: string, page: URL): MailMessage {
  const url = new URL(page);
  url.searchParams.set('token', token);
  const link = url.href;
  const values: Record<string, string> = { name, email: to, link, token };
  return {
    id: `msg_${randomUUID()}`,
    to,
    subject: 'Reset your password',
    text: `Hello ${name},\n\nSomeone asked to reset the password of ${to}. Choose a new one here (the link works once):\n${link}\n\nIf you did not ask, ignore this message.\n`,
    html: template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => escapeHtml(values[key] ?? '')),
    token,
    created_at: new Date().toISOString(),
  };
}

/** What a persona's address gets: its password comes from the config, so no reset token (contract section 7). */
export function personaMessage(to: string): MailMessage {
  return plainMessage(to, 'Password reset requested', `Someone asked to reset the password of ${to}. This account is a persona: its password is set in the server's config and cannot be reset by mail.\n`);
}

/** What an address with no account gets: a message saying so, with no token (no account enumeration over the API). */
export function noAccountMessage(to: string): MailMessage {
  return plainMessage(to, 'Password reset requested', `Someone asked to reset the password of ${to}, but no account uses this address. If you did not ask, ignore this message.\n`);
}

function plainMessage(to: string, subject: string, text: string): MailMessage {
  return {
    id: `msg_${randomUUID()}`,
    to,
    subject,
    text,
    html: `<!doctype html><html lang="en"><body><p>${escapeHtml(text.trim())}</p></body></html>`,
    token: null,
    created_at: new Date().toISOString(),
  };
}
