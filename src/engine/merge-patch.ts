type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * JSON Merge Patch (RFC 7386): objects merge key by key, `null` removes a key, anything else
 * replaces. Builds new objects with `Object.fromEntries` so a `__proto__` key stays a plain key.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const entries = new Map<string, unknown>(isObject(target) ? Object.entries(target) : []);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) entries.delete(key);
    else entries.set(key, applyMergePatch(entries.get(key), value));
  }
  return Object.fromEntries(entries);
}
