/**
 * State made from a config, made once per config object. A config is never changed, only
 * replaced whole (`runtime.reconfigure`), so what was made from one never goes stale: a reload
 * brings a new object and so a new value, and a request that started before it keeps reading the
 * state of the config it started with.
 */
export function perConfig<C extends object, T>(make: (config: C) => T): (config: C) => T {
  const made = new WeakMap<C, { value: T }>();
  return (config) => {
    let entry = made.get(config);
    if (!entry) made.set(config, (entry = { value: make(config) }));
    return entry.value;
  };
}

/** Freezes a resolved config and the objects and arrays in it (not a custom route's handler), so no part can change it under another. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
