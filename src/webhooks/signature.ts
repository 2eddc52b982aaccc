import { createHmac, randomBytes } from 'node:crypto';
import type { SignatureFormat } from '../engine/webhook-store.js';

/** What a signature covers: the exact body bytes, the delivery id and the time of the attempt. */
export interface Signed {
  body: string;
  deliveryId: string;
  /** Unix seconds. */
  timestamp: number;
}

const standardPrefix = 'whsec_';

/** A new secret: `whsec_` and 24 random bytes in base64, usable by every format (Standard Webhooks decodes it). */
export function generateSecret(): string {
  return standardPrefix + randomBytes(24).toString('base64');
}

/** The HMAC key of a Standard Webhooks secret (`whsec_<base64>`), or undefined when it is not one. */
export function standardKey(secret: string): Buffer | undefined {
  if (!secret.startsWith(standardPrefix)) return undefined;
  const encoded = secret.slice(standardPrefix.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length > 0 ? key : undefined;
}

const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8');

/**
 * The signature headers of one attempt (contract section 8):
 * - `timestamped` (default): `X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, Stripe's scheme;
 * - `sha256`: `X-Service-Signature: sha256=<hex HMAC of the body>`, GitHub's scheme;
 * - `standard`: Standard Webhooks' `webhook-id`, `webhook-timestamp` and `webhook-signature`
 *   (`v1,<base64 HMAC of "id.timestamp.body">` keyed by the decoded secret), the same value also
 *   in `X-Service-Signature`.
 * For `timestamped` and `sha256` the key is the secret's UTF-8 bytes.
 */
export function signatureHeaders(format: SignatureFormat, secret: string, signed: Signed): Record<string, string> {
  const { body, deliveryId, timestamp } = signed;
  if (format === 'sha256') return { 'x-service-signature': `sha256=${hmac(secret, body).digest('hex')}` };
  if (format === 'standard') {
    const key = standardKey(secret) ?? Buffer.from(secret, 'utf8');
    const signature = `v1,${hmac(key, `${deliveryId}.${timestamp}.${body}`).digest('base64')}`;
    return {
      'x-service-signature': signature,
      'webhook-id': deliveryId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    };
  }
  return { 'x-service-signature': `t=${timestamp},v1=${hmac(secret, `${timestamp}.${body}`).digest('hex')}` };
}
