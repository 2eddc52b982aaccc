import { randomUUID } from 'node:crypto';

export type RecordId = number | string;

export const localId = /^local-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const canonicalInteger = /^[1-9][0-9]{0,15}$/;

/**
 * Reads a record id from a path segment or a foreign-key value: a baseline integer (`7`, `"7"`)
 * or a created `local-<uuid v4>`. Anything else names no record and gives undefined.
 */
export function parseRecordId(value: unknown): RecordId | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 1 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  if (canonicalInteger.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return localId.test(value) ? value : undefined;
}

export function newRecordId(): string {
  return `local-${randomUUID()}`;
}
