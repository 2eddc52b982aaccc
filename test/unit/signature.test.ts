import { describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { verify as verifyGithub } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { generateSecret, signatureHeaders, standardKey } from '../../src/webhooks/signature.js';

const body = JSON.stringify({ id: 'evt_000000000001', event: 'post.created', timestamp: '2026-01-01T00:00:00.000Z', data: { id: 1, title: 'é ✓ "quoted"' } });
const now = () => Math.floor(Date.now() / 1000);

describe('webhook signatures, checked by the libraries receivers use', () => {
  it("timestamped: Stripe's webhooks.constructEvent accepts it, and refuses a changed body or secret", () => {
    const secret = 'whsec_test_secret';
    const headers = signatureHeaders('timestamped', secret, { body, deliveryId: 'del_1', timestamp: now() });
    expect(headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const stripe = new Stripe('sk_test_x');
    const event = stripe.webhooks.constructEvent(body, headers['x-service-signature'], secret) as unknown as { event: string };
    expect(event.event).toBe('post.created');
    expect(() => stripe.webhooks.constructEvent(`${body} `, headers['x-service-signature'], secret)).toThrow();
    expect(() => stripe.webhooks.constructEvent(body, headers['x-service-signature'], 'other')).toThrow();
    // an old timestamp is refused by the receiver's tolerance: the time is really signed
    const old = signatureHeaders('timestamped', secret, { body, deliveryId: 'del_1', timestamp: now() - 3600 });
    expect(() => stripe.webhooks.constructEvent(body, old['x-service-signature'], secret)).toThrow();
  });

  it("sha256: @octokit/webhooks-methods' verify accepts it, and refuses a changed body or secret", async () => {
    const secret = 'plain secret ✓';
    const headers = signatureHeaders('sha256', secret, { body, deliveryId: 'del_2', timestamp: now() });
    expect(headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verifyGithub(secret, body, headers['x-service-signature'])).toBe(true);
    expect(await verifyGithub(secret, `${body} `, headers['x-service-signature'])).toBe(false);
    expect(await verifyGithub('other', body, headers['x-service-signature'])).toBe(false);
  });

  it("standard: standardwebhooks' Webhook.verify accepts it with a generated whsec_ secret, and refuses a changed body", () => {
    const secret = generateSecret();
    expect(standardKey(secret)).toHaveLength(24);
    const headers = signatureHeaders('standard', secret, { body, deliveryId: 'del_3', timestamp: now() });
    expect(headers['webhook-id']).toBe('del_3');
    expect(headers['webhook-signature']).toBe(headers['x-service-signature']);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(secret).verify(body, headers) as { event: string };
    expect(verified.event).toBe('post.created');
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
  });

  it('reads only well-formed whsec_ secrets as Standard Webhooks keys', () => {
    expect(standardKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBeInstanceOf(Buffer);
    for (const bad of ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_', 'whsec_!!!!', 'whsec_abc']) expect(standardKey(bad)).toBeUndefined();
  });
});
