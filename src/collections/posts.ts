import { defineCollection } from '../engine/definition.js';
import { recordRef, requiredText, timestamp } from './_fields.js';

export const posts = defineCollection({
  name: 'posts',
  singular: 'post',
  cid: 2,
  fields: { user_id: recordRef, title: requiredText(500), body: requiredText(), created_at: timestamp },
  required: ['user_id', 'title', 'body'],
  foreignKeys: [{ field: 'user_id', references: 'users' }],
  searchable: ['title', 'body'],
  createdAt: 'created_at',
  relations: [
    { name: 'user', kind: 'one', collection: 'users', field: 'user_id' },
    { name: 'comments', kind: 'many', collection: 'comments', field: 'post_id' },
  ],
});
