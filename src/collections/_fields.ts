import type { JsonSchema } from '../engine/definition.js';

/** Field shapes shared by the core collections. */
export const text = (maxLength = 10_000): JsonSchema => ({ type: 'string', maxLength });
export const requiredText = (maxLength = 10_000): JsonSchema => ({ type: 'string', minLength: 1, maxLength });
export const email: JsonSchema = { type: 'string', format: 'email', maxLength: 254 };
export const timestamp: JsonSchema = { type: 'string', format: 'date-time' };

/** A reference to another record: a baseline integer id, its decimal string, or a created `local-<uuid>`. */
export const recordRef: JsonSchema = { 'x-record-id': true };
