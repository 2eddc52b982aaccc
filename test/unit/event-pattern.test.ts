import { describe, expect, it } from 'vitest';
import { compilePatterns, isEventPattern, matchesEvent, parsePatternList, pluralOf } from '../../src/engine/event-pattern.js';

describe('event patterns', () => {
  it.each([
    // [pattern, name, matches]
    ['post.created', 'post.created', true],
    ['posts.created', 'post.created', true],
    ['post.*', 'post.created', true],
    ['posts.*', 'post.deleted', true],
    ['*', 'user.updated', true],
    ['*', 'test.ping', true],
    ['post.created', 'post.updated', false],
    ['posts.created', 'posts.created', true],
    ['post.*', 'postal.created', false],
    ['posts.*', 'postal.created', false],
    ['post.*', 'user.created', false],
    ['users.*', 'user.created', true],
    ['comment.*', 'comment.updated', true],
    ['comments.updated', 'comment.updated', true],
    ['todos.*', 'todo.deleted', true],
    ['sandboxes.*', 'sandbox.reset', true],
    ['sandboxes.reset', 'sandbox.reset', true],
    ['sandbox.*', 'sandbox.restored', true],
    ['sandboxs.*', 'sandbox.reset', false],
    ['auth.*', 'auth.login', true],
    ['auth.login', 'auth.registered', false],
    ['custom.*', 'custom.book.deleted', true],
    ['custom.books.*', 'custom.book.deleted', true],
    ['custom.book.deleted', 'custom.book.deleted', true],
    ['custom.books.deleted', 'custom.book.deleted', true],
    ['custom.book.*', 'custom.bookmark.created', false],
    ['post', 'post.created', false],
    ['created', 'post.created', false],
    ['post.created.*', 'post.created', false],
    ['category.*', 'category.created', true],
    ['categories.created', 'category.created', true],
    ['tests.ping', 'test.ping', true],
  ])('%s against %s → %s', (pattern, name, expected) => {
    expect(matchesEvent(pattern, name)).toBe(expected);
    expect(compilePatterns([pattern])(name)).toBe(expected);
  });

  it('plurals', () => {
    expect(['post', 'sandbox', 'category', 'day', 'match', 'bus', 'user'].map(pluralOf)).toEqual([
      'posts',
      'sandboxes',
      'categories',
      'days',
      'matches',
      'buses',
      'users',
    ]);
  });

  it('a list matches when any pattern does; no patterns select everything', () => {
    const test = compilePatterns(['user.created', 'posts.*']);
    expect(['user.created', 'post.updated', 'user.deleted', 'comment.created'].map(test)).toEqual([true, true, false, false]);
    expect(compilePatterns([])('anything.at_all')).toBe(true);
    // remembered results stay right
    expect(test('post.updated')).toBe(true);
    expect(test('user.deleted')).toBe(false);
  });

  it.each(['*', 'post.created', 'posts.*', 'custom.books.*', 'a', 'x_y-z.w'])('accepts %s', (pattern) => {
    expect(isEventPattern(pattern)).toBe(true);
  });
  it.each(['', ' ', '**', 'post.', '.post', 'Post.created', 'post.*.created', '*.created', 'post..created', 'post created', 'x'.repeat(129), 7, null])(
    'refuses %s',
    (pattern) => {
      expect(isEventPattern(pattern)).toBe(false);
    },
  );

  it('parses comma lists, skipping empty parts, and names the first bad one', () => {
    expect(parsePatternList(['post.*, user.created', 'todo.deleted,'])).toEqual({ patterns: ['post.*', 'user.created', 'todo.deleted'] });
    expect(parsePatternList(['post.*,Bad'])).toEqual({ patterns: ['post.*'], invalid: 'Bad' });
    expect(parsePatternList([])).toEqual({ patterns: [] });
  });
});
