import { defineCollection } from '../engine/definition.js';
import { email, recordRef, requiredText, timestamp } from './_fields.js';

export const comments = defineCollection({
  name: 'comments',
  singular: 'comment',
  cid: 3,
  fields: { post_id: recordRef, name: requiredText(500), email, body: requiredText(), created_at: timestamp },
  required: ['post_id', 'name', 'email', 'body'],
  foreignKeys: [{ field: 'post_id', references: 'posts' }],
  searchable: ['name', 'email', 'body'],
  createdAt: 'created_at',
  relations: [{ name: 'post', kind: 'one', collection: 'posts', field: 'post_id' }],
});
