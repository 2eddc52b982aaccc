import { defineCollection } from '../engine/definition.js';
import { recordRef, requiredText, timestamp } from './_fields.js';

export const todos = defineCollection({
  name: 'todos',
  singular: 'todo',
  cid: 4,
  fields: { user_id: recordRef, title: requiredText(500), completed: { type: 'boolean' }, created_at: timestamp },
  required: ['user_id', 'title', 'completed'],
  foreignKeys: [{ field: 'user_id', references: 'users' }],
  searchable: ['title'],
  createdAt: 'created_at',
  relations: [{ name: 'user', kind: 'one', collection: 'users', field: 'user_id' }],
});
