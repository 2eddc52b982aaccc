import type { ErrorObject, ValidateFunction } from 'ajv';
import { compileConfigValidator } from './config-ajv.js';

let validate: ValidateFunction | undefined;

/**
 * What the config schema finds wrong with `data` (nothing: valid). Run from the sources (tests),
 * it compiles the schema on first use; `npm run build` replaces dist/config-validator.js with
 * this same function over ajv's standalone code for the schema (scripts/config-validator.mjs),
 * so loading a config at startup costs neither typebox nor an ajv compile.
 */
export function validateConfig(data: unknown): ErrorObject[] {
  validate ??= compileConfigValidator().validate;
  return validate(data) ? [] : (validate.errors ?? []);
}
