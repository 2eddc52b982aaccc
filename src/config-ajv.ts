import { _, Ajv, type Options } from 'ajv';
import { configSchema } from './config-schema.js';
import { parseDuration } from './duration.js';

/**
 * Ajv over the config schema, compiled. Its own keywords are written as code rather than as
 * functions, so ajv's standalone output (scripts/config-validator.mjs, `options.code`) can hold
 * them: `x-duration` calls `parseDuration`, which the generated module imports.
 */
export function compileConfigValidator(options: Options = {}) {
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true, ...options });
  ajv.addVocabulary(['x-expect', 'x-key']);
  ajv.addKeyword({
    keyword: 'x-duration',
    schemaType: 'boolean',
    code: (cxt) => {
      const parse = cxt.gen.scopeValue('func', { ref: parseDuration, code: _`parseDuration` });
      cxt.fail(_`${parse}(${cxt.data}) === undefined`);
    },
  });
  ajv.addKeyword({ keyword: 'x-function', schemaType: 'boolean', code: (cxt) => cxt.fail(_`typeof ${cxt.data} !== "function"`) });
  return { ajv, validate: ajv.compile(configSchema) };
}
