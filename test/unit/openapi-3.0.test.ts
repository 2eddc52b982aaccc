import { describe, expect, it } from 'vitest';
import { toOpenApi30 } from '../../src/openapi/to-3.0.js';

/** A 3.1 document holding one schema (and `Target`, an object, for references). */
const convert = (schema: Record<string, unknown>) => {
  const document = {
    openapi: '3.1.0',
    info: { title: 't', version: '1', summary: 's', license: { name: 'MIT', identifier: 'MIT' } },
    paths: {},
    components: { schemas: { Under: schema, Target: { type: 'object' }, Id: { anyOf: [{ type: 'integer' }, { type: 'string' }] } } },
  };
  return (toOpenApi30(document) as { components: { schemas: Record<string, unknown> } }).components.schemas.Under;
};

describe('the 3.1 → 3.0.3 converter', () => {
  it('turns type arrays into a type with nullable, or anyOf of the types', () => {
    expect(convert({ type: ['string', 'null'], maxLength: 3 })).toEqual({ type: 'string', maxLength: 3, nullable: true });
    expect(convert({ type: ['integer', 'string'] })).toEqual({ anyOf: [{ type: 'integer' }, { type: 'string' }] });
    expect(convert({ type: 'object', properties: { a: { type: ['boolean', 'null'] } } })).toEqual({ type: 'object', properties: { a: { type: 'boolean', nullable: true } } });
  });

  it('turns a null branch into nullable, with the referenced type beside it', () => {
    expect(convert({ anyOf: [{ $ref: '#/components/schemas/Target' }, { type: 'null' }], description: 'd' })).toEqual({
      allOf: [{ $ref: '#/components/schemas/Target' }],
      description: 'd',
      nullable: true,
      type: 'object',
    });
    // Branches of several types: null stays a branch of its own, in 3.0's spelling.
    expect(convert({ anyOf: [{ $ref: '#/components/schemas/Id' }, { type: 'null' }] })).toEqual({
      anyOf: [{ $ref: '#/components/schemas/Id' }, { type: 'string', nullable: true, enum: [null] }],
    });
  });

  it('rewrites const, examples and numeric exclusive bounds; drops what 3.0 lacks', () => {
    expect(convert({ const: 'standard' })).toEqual({ enum: ['standard'] });
    expect(convert({ type: 'string', examples: ['a', 'b'] })).toEqual({ type: 'string', example: 'a' });
    expect(convert({ type: 'number', exclusiveMinimum: 0 })).toEqual({ type: 'number', minimum: 0, exclusiveMinimum: true });
    expect(convert({ type: 'object', required: [], propertyNames: { pattern: 'x' }, if: {}, then: {}, $comment: 'c' })).toEqual({ type: 'object' });
    expect(convert({ type: 'string', contentMediaType: 'application/pdf' })).toEqual({ type: 'string', format: 'binary' });
  });

  it('keeps the siblings of a $ref by wrapping it in allOf', () => {
    expect(convert({ $ref: '#/components/schemas/Target', description: 'why' })).toEqual({ description: 'why', allOf: [{ $ref: '#/components/schemas/Target' }] });
    expect(convert({ $ref: '#/components/schemas/Target' })).toEqual({ $ref: '#/components/schemas/Target' });
  });

  it('moves webhooks to x-webhooks, lists no scopes for non-OAuth schemes and drops 3.1-only info', () => {
    const converted = toOpenApi30({
      openapi: '3.1.0',
      info: { title: 't', version: '1', summary: 's', license: { name: 'MIT', identifier: 'MIT' } },
      paths: { '/a': { get: { security: [{}, { bearerAuth: ['a:read'] }, { bearerAuth: ['b:read'] }], responses: { '200': { description: 'ok', content: { 'application/json': { schema: { const: 1 } } } } } } } },
      webhooks: { 'a.created': { post: { requestBody: { content: { 'application/json': { schema: { type: ['object', 'null'] } } } } } } },
      components: { schemas: {} },
    }) as any;
    expect(converted.openapi).toBe('3.0.3');
    expect(converted.info).toEqual({ title: 't', version: '1', license: { name: 'MIT' } });
    expect(converted.webhooks).toBeUndefined();
    expect(converted['x-webhooks']['a.created'].post.requestBody.content['application/json'].schema).toEqual({ type: 'object', nullable: true });
    expect(converted.paths['/a'].get.security).toEqual([{}, { bearerAuth: [] }]);
    expect(converted.paths['/a'].get.responses['200'].content['application/json'].schema).toEqual({ enum: [1] });
  });
});
