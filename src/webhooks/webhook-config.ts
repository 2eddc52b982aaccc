import { isEventPattern } from '../engine/event-pattern.js';
import { signatureFormats, type SignatureFormat } from '../engine/webhook-store.js';
import { perConfig } from '../per-config.js';
import { standardKey } from './signature.js';

/** `webhooks` of the config (contract section 2), read defensively: the config schema lives elsewhere and may be older or newer. */
export interface WebhookSettings {
  timeoutMs: number;
  attempts: number;
  backoffMs: number;
  allowHosts?: string[];
  subscriptions: ConfigSubscription[];
}

/** A subscription of the config: it receives every sandbox's events. Without a secret, its deliveries go unsigned. */
export interface ConfigSubscription {
  id: string;
  url: string;
  events: string[];
  secret: string | null;
  signature: SignatureFormat;
}

const positive = (value: unknown, fallback: number, min = 0) =>
  typeof value === 'number' && Number.isFinite(value) && value >= min ? value : fallback;

/** `readWebhookSettings` once per config object (a reload swaps the config whole). */
export const webhookSettings = perConfig(readWebhookSettings);

export function readWebhookSettings(config: unknown): WebhookSettings {
  const raw = ((config as { webhooks?: unknown } | undefined)?.webhooks ?? {}) as Record<string, unknown>;
  const subscriptions: ConfigSubscription[] = [];
  (Array.isArray(raw.subscriptions) ? raw.subscriptions : []).forEach((entry: unknown, index) => {
    const s = (entry ?? {}) as Record<string, unknown>;
    const events = Array.isArray(s.events) ? s.events.filter(isEventPattern) : [];
    if (typeof s.url !== 'string' || !/^https?:\/\//i.test(s.url) || !events.length) return;
    const signature = signatureFormats.includes(s.signature as SignatureFormat) ? (s.signature as SignatureFormat) : 'timestamped';
    const secret = typeof s.secret === 'string' && s.secret !== '' ? s.secret : null;
    if (signature === 'standard' && secret !== null && !standardKey(secret)) return;
    subscriptions.push({ id: `config:${index}`, url: s.url, events, secret, signature });
  });
  return {
    timeoutMs: positive(raw.timeoutMs, 5000, 1),
    attempts: Math.max(1, Math.floor(positive(raw.attempts, 3, 1))),
    backoffMs: positive(raw.backoffMs, 1000),
    allowHosts: Array.isArray(raw.allowHosts) ? raw.allowHosts.filter((h): h is string => typeof h === 'string') : undefined,
    subscriptions,
  };
}
