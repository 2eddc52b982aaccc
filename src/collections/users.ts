import { defineCollection } from '../engine/definition.js';
import { email, requiredText, text } from './_fields.js';

export const users = defineCollection({
  name: 'users',
  singular: 'user',
  cid: 1,
  fields: {
    name: requiredText(200),
    username: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' },
    email,
    phone: text(64),
    website: text(2048),
    // A profile field (`PATCH /auth/me`); baseline users have none.
    bio: text(2000),
    address: {
      type: 'object',
      additionalProperties: false,
      properties: {
        street: text(200),
        suite: text(200),
        city: text(200),
        zipcode: text(32),
        geo: {
          type: 'object',
          additionalProperties: false,
          properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, lng: { type: 'number', minimum: -180, maximum: 180 } },
        },
      },
    },
    company: {
      type: 'object',
      additionalProperties: false,
      properties: { name: text(200), catchPhrase: text(500) },
    },
  },
  required: ['name', 'username', 'email'],
  unique: ['username', 'email'],
  searchable: ['name', 'username', 'email', 'phone', 'website', 'company.name'],
  relations: [
    { name: 'posts', kind: 'many', collection: 'posts', field: 'user_id' },
    { name: 'todos', kind: 'many', collection: 'todos', field: 'user_id' },
    { name: 'comments', kind: 'many', collection: 'comments', field: 'email', key: 'email' },
  ],
});
