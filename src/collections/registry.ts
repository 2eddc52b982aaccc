import type { CollectionDefinition } from '../engine/definition.js';
import { comments } from './comments.js';
import { posts } from './posts.js';
import { todos } from './todos.js';
import { users } from './users.js';

/** The core collections, in the order they load (referenced collections first). */
export const coreCollections: CollectionDefinition[] = [users, posts, comments, todos];
