import { describe, expect, it } from 'vitest';
import { newRecordId, parseRecordId } from '../../src/engine/record-id.js';

describe('parseRecordId', () => {
  it.each([
    [7, 7],
    ['7', 7],
    ['123456', 123456],
    ['9007199254740991', 9007199254740991],
  ])('reads %j as the integer %j', (input, expected) => {
    expect(parseRecordId(input)).toBe(expected);
  });

  it('reads a created local id as itself', () => {
    const id = newRecordId();
    expect(id).toMatch(/^local-[0-9a-f-]{36}$/);
    expect(parseRecordId(id)).toBe(id);
  });

  it.each([0, -1, 1.5, NaN, Infinity, 2 ** 60, '0', '-1', '1.5', '007', '1e3', ' 7', '7 ', '', 'abc', '99999999999999999999',
    'local-', 'local-not-a-uuid', 'LOCAL-00000000-0000-4000-8000-000000000000', 'local-00000000-0000-1000-8000-000000000000',
    null, undefined, true, {}, [], '%00'])('rejects %j', (input) => {
    expect(parseRecordId(input)).toBeUndefined();
  });
});
