import { isEventPattern } from '../engine/event-pattern.js';
import { signatureFormats, type SignatureFormat, type Subscription } from '../engine/webhook-store.js';
import { validationFailed, type FieldProblem } from '../engine/errors.js';
import { generateSecret, standardKey } from './signature.js';

export type SubscriptionFields = Omit<Subscription, 'id' | 'created_at'>;

const known = new Set(['url', 'events', 'secret', 'signature']);
const maxPatterns = 50;

/**
 * Whether `webhooks.allowHosts` lets deliveries go to this URL: no list allows every host; an entry
 * is a hostname (`localhost`), a host and port (`localhost:9000`) or a wildcard (`*.example.test`).
 */
export function hostAllowed(url: string, allowHosts: unknown): boolean {
  if (!Array.isArray(allowHosts)) return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return allowHosts.some((entry) => {
    if (typeof entry !== 'string') return false;
    const allowed = entry.toLowerCase().replace(/^\[|\]$/g, '');
    if (allowed.startsWith('*.')) return host.endsWith(allowed.slice(1));
    return allowed === host || allowed === `${host}:${parsed.port}` || allowed === parsed.host.toLowerCase();
  });
}

/**
 * Checks a subscription body (contract section 8: 422 for a missing or non-http(s) url, empty
 * events, an unknown signature format, unknown fields). `current` is the subscription a PATCH
 * changes; without it, defaults fill in (a generated secret, `timestamped`).
 */
export function checkSubscription(body: Record<string, unknown>, allowHosts: unknown, current?: SubscriptionFields): SubscriptionFields {
  const problems: FieldProblem[] = [];
  for (const key of Object.keys(body)) {
    if (!known.has(key)) problems.push({ path: `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, message: 'is not a known field (url, events, secret, signature)' });
  }
  const { url, events, secret, signature } = body;
  if (url !== undefined || !current) {
    const problem = urlProblem(url, allowHosts);
    if (problem) problems.push({ path: '/url', message: problem });
  }
  if (events !== undefined || !current) {
    if (!Array.isArray(events) || events.length === 0) problems.push({ path: '/events', message: 'must be a non-empty array of event patterns (post.created, posts.*, *)' });
    else if (events.length > maxPatterns) problems.push({ path: '/events', message: `must hold at most ${maxPatterns} patterns` });
    else events.forEach((pattern, i) => {
      if (!isEventPattern(pattern)) problems.push({ path: `/events/${i}`, message: 'is not an event pattern (post.created, posts.created, post.*, posts.*, *)' });
    });
  }
  if (signature !== undefined && !signatureFormats.includes(signature as SignatureFormat)) {
    problems.push({ path: '/signature', message: `must be one of ${signatureFormats.join(', ')}` });
  }
  if (secret !== undefined && (typeof secret !== 'string' || secret.length === 0 || secret.length > 256)) {
    problems.push({ path: '/secret', message: 'must be a string of 1-256 characters' });
  }
  if (problems.length) throw validationFailed(problems);

  const format = (signature as SignatureFormat | undefined) ?? current?.signature ?? 'timestamped';
  const fields: SubscriptionFields = {
    url: (url as string | undefined) ?? current!.url,
    events: (events as string[] | undefined) ?? current!.events,
    signature: format,
    secret: (secret as string | undefined) ?? current?.secret ?? generateSecret(),
  };
  if (format === 'standard' && !standardKey(fields.secret)) {
    throw validationFailed([{ path: '/secret', message: 'must be whsec_<base64 key> for the standard signature (leave it out to have one generated)' }]);
  }
  return fields;
}

function urlProblem(url: unknown, allowHosts: unknown): string | undefined {
  if (url === undefined) return 'is required';
  if (typeof url !== 'string' || url.length > 2048) return 'must be an http(s) URL';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an http(s) URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http(s) URL';
  if (!hostAllowed(url, allowHosts)) return `names a host that webhooks.allowHosts does not allow (${(allowHosts as unknown[]).join(', ')})`;
  return undefined;
}
