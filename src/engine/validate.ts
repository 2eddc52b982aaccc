import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldProblem } from './errors.js';
import { nestingDepth } from '../json-depth.js';
import type { CollectionDefinition, JsonSchema } from './definition.js';
import { parseRecordId } from './record-id.js';

const ajv = withKeywords(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }));
/**
 * For schemas a user wrote (config `collections`): keywords ajv does not know (`$comment` aside,
 * `example`, editor hints) and formats beyond email and date-time are ignored, not a start-up failure.
 */
const lenient = withKeywords(new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, validateFormats: true }));

function withKeywords(instance: Ajv): Ajv {
  (addFormats as unknown as (ajv: Ajv, formats: string[]) => void)(instance, ['email', 'date-time', 'date', 'time', 'uri', 'uuid']);
  instance.addKeyword({
    keyword: 'x-record-id',
    schemaType: 'boolean',
    errors: true,
    validate: function recordId(_schema: boolean, data: unknown) {
      if (parseRecordId(data) !== undefined) return true;
      (recordId as unknown as { errors: Partial<ErrorObject>[] }).errors = [
        { keyword: 'x-record-id', message: 'must be a record id (a positive integer or local-<uuid>)', params: {} },
      ];
      return false;
    },
  });
  return instance;
}

/** Compiles a user's record schema; throws ajv's message for one that is not a valid JSON Schema. */
export function compileUserSchema(schema: JsonSchema): ValidateFunction {
  return lenient.compile(schema);
}

/**
 * How deep a stored record may nest (the record itself is level 1), whichever way it came in:
 * REST, GraphQL, a spreadsheet, an import, a custom route. SQLite's JSON functions refuse text
 * nested past 1,000 levels, and the search index and filters read records through them; 32 is
 * the REST body's bound, so every record a client could send fits.
 */
export const maxRecordDepth = 32;

/** Validates whole records (after defaults, PUT merge or PATCH) against a collection's schema. */
export function createRecordValidator(definition: CollectionDefinition): (record: unknown) => FieldProblem[] {
  // An open collection takes any JSON object (the body reader already made it one).
  const validate: ValidateFunction | undefined = definition.open
    ? undefined
    : definition.schema
      ? compileUserSchema(definition.schema)
      : ajv.compile({ type: 'object', properties: definition.fields, required: definition.required, additionalProperties: false });
  return (record) => {
    if (!record || typeof record !== 'object' || Array.isArray(record)) return [{ path: '/', message: 'must be an object' }];
    // Before ajv, whose checks recurse with the data.
    const deep = tooDeep(record as Record<string, unknown>);
    if (deep) return [deep];
    if (!validate) return [];
    return validate(record) ? [] : toFieldProblems(validate.errors ?? []);
  };
}

/** The first top-level field that takes the record past {@link maxRecordDepth}. */
function tooDeep(record: Record<string, unknown>): FieldProblem | undefined {
  for (const [key, value] of Object.entries(record)) {
    if (1 + nestingDepth(value, maxRecordDepth - 1) > maxRecordDepth) {
      return { path: `/${escapePointer(key)}`, message: `nests deeper than ${maxRecordDepth} levels (the record is level 1)` };
    }
  }
  return undefined;
}

/** One entry per problem: ajv may report several keywords for one path (a union type, say). */
function toFieldProblems(errors: ErrorObject[]): FieldProblem[] {
  const byPath = new Map<string, FieldProblem>();
  for (const error of errors) {
    let path = error.instancePath;
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'required') {
      path += `/${escapePointer(String(error.params.missingProperty))}`;
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      path += `/${escapePointer(String(error.params.additionalProperty))}`;
      message = 'is not a field of this collection';
    } else if (error.keyword === 'format') {
      message = error.params.format === 'email' ? 'must be an email address' : `must be a ${error.params.format} string`;
    } else if (error.keyword === 'type' && path === '') {
      message = 'must be an object';
    }
    if (!byPath.has(path || '/')) byPath.set(path || '/', { path: path || '/', message });
  }
  return [...byPath.values()];
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
