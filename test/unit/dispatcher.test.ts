import { describe, expect, it } from 'vitest';
import { backoff, headersFor, userAgent } from '../../src/webhooks/dispatcher.js';
import { hostAllowed } from '../../src/webhooks/subscription-input.js';
import { readWebhookSettings } from '../../src/webhooks/webhook-config.js';

describe('dispatcher pieces', () => {
  it('backs off exponentially with jitter of ±50 %', () => {
    for (let made = 1; made <= 5; made++) {
      const base = 100 * 2 ** (made - 1);
      const samples = Array.from({ length: 200 }, () => backoff(100, made));
      expect(Math.min(...samples)).toBeGreaterThanOrEqual(base * 0.5);
      expect(Math.max(...samples)).toBeLessThanOrEqual(base * 1.5);
      expect(new Set(samples).size).toBeGreaterThan(10);
    }
    expect(backoff(0, 3)).toBe(0);
  });

  it('sends the contract headers, signed only when there is a secret', () => {
    const job = { id: 'del_1', event: 'post.created', body: '{}', signature: 'sha256' as const, secret: 's' };
    expect(headersFor(job)).toEqual({
      'content-type': 'application/json',
      'user-agent': userAgent,
      'x-service-event': 'post.created',
      'x-service-delivery': 'del_1',
      'x-service-signature': expect.stringMatching(/^sha256=/),
    });
    expect(headersFor({ ...job, secret: null })).not.toHaveProperty('x-service-signature');
  });

  it.each([
    ['http://localhost:9000/x', undefined, true],
    ['http://localhost:9000/x', ['localhost'], true],
    ['http://localhost:9000/x', ['localhost:9000'], true],
    ['http://localhost:9000/x', ['localhost:9001'], false],
    ['https://a.ngrok.app/x', ['*.ngrok.app'], true],
    ['https://ngrok.app/x', ['*.ngrok.app'], false],
    ['https://evilngrok.app/x', ['*.ngrok.app'], false],
    ['http://[::1]:8080/x', ['::1'], true],
    ['http://EXAMPLE.com/x', ['example.com'], true],
    ['http://example.com/x', [], false],
    ['not a url', ['example.com'], false],
  ])('allowHosts: %s with %j → %s', (url, allow, expected) => {
    expect(hostAllowed(url, allow)).toBe(expected);
  });

  it('reads the webhooks config defensively', () => {
    expect(readWebhookSettings(undefined)).toEqual({ timeoutMs: 5000, attempts: 3, backoffMs: 1000, allowHosts: undefined, subscriptions: [] });
    const settings = readWebhookSettings({
      webhooks: {
        timeoutMs: 250,
        attempts: 0,
        backoffMs: -1,
        allowHosts: ['localhost', 7],
        subscriptions: [
          { url: 'http://localhost/a', events: ['*'] },
          { url: 'ftp://x', events: ['*'] },
          { url: 'http://localhost/b', events: [] },
          { url: 'http://localhost/c', events: ['post.*'], signature: 'standard', secret: 'not whsec' },
          { url: 'http://localhost/d', events: ['post.*'], signature: 'sha256', secret: 'x' },
        ],
      },
    });
    expect(settings).toMatchObject({ timeoutMs: 250, attempts: 3, backoffMs: 1000, allowHosts: ['localhost'] });
    expect(settings.subscriptions).toEqual([
      { id: 'config:0', url: 'http://localhost/a', events: ['*'], secret: null, signature: 'timestamped' },
      { id: 'config:4', url: 'http://localhost/d', events: ['post.*'], secret: 'x', signature: 'sha256' },
    ]);
  });
});
