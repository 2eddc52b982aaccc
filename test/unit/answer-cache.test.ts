import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { createAnswerCache } from '../../src/engine/answer-cache.js';
import type { SandboxStore } from '../../src/engine/sandbox-store.js';

// What a write drops: a sandbox's answers read from the written collection (directly or through a
// relation), and those that name nothing they were read from; the rest stay, so a PATCH of a todo
// keeps the posts pages. The HTTP tests (test/answer-cache.test.ts) check that no answer is stale.
const db = openDatabase(':memory:');
// Every sandbox here holds data (its own answers); `sidOf` is all the cache asks of the store.
const holding = { sidOf: () => 1 } as unknown as SandboxStore;

function cacheWithCounts() {
  const cache = createAnswerCache(db, holding);
  const made = new Map<string, number>();
  const ask = (sandbox: string, request: string, readFrom?: readonly string[]) =>
    cache.answer(
      sandbox,
      'owner',
      request,
      () => {
        const n = (made.get(`${sandbox} ${request}`) ?? 0) + 1;
        made.set(`${sandbox} ${request}`, n);
        return `${request} #${n}`;
      },
      readFrom,
    );
  return { cache, ask, made };
}

describe('the answer cache', () => {
  it('drops, on a write, only the answers read from the written collection and those naming nothing', () => {
    const { cache, ask } = cacheWithCounts();
    const reads: [string, readonly string[] | undefined][] = [
      ['L posts', ['posts']],
      ['L todos', ['todos']],
      ['R users 1 posts', ['users', 'posts']],
      ['S users 1 todos', ['todos', 'users']],
      ['G { everything }', undefined],
    ];
    for (const [request, from] of reads) expect(ask('a', request, from)).toBe(`${request} #1`);
    for (const [request, from] of reads) expect(ask('b', request, from)).toBe(`${request} #1`);

    cache.collectionChanged('a', 'todos');
    expect(reads.map(([request, from]) => ask('a', request, from))).toEqual(['L posts #1', 'L todos #2', 'R users 1 posts #1', 'S users 1 todos #2', 'G { everything } #2']);
    // Another sandbox's answers are its own.
    expect(reads.map(([request, from]) => ask('b', request, from))).toEqual(reads.map(([request]) => `${request} #1`));

    cache.collectionChanged('a', 'posts');
    expect(reads.map(([request, from]) => ask('a', request, from))).toEqual(['L posts #2', 'L todos #2', 'R users 1 posts #2', 'S users 1 todos #2', 'G { everything } #3']);
    cache.drop('a');
    expect(reads.map(([request, from]) => ask('a', request, from))).toEqual(['L posts #3', 'L todos #3', 'R users 1 posts #3', 'S users 1 todos #3', 'G { everything } #4']);
  });

  it('does not keep an answer made while a write dropped some of the sandbox answers', async () => {
    const { cache } = cacheWithCounts();
    let made = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const document = () =>
      cache.answerLater('a', 'owner', 'G { todos }', async () => {
        made++;
        await gate;
        return { body: `todos #${made}`, keep: true };
      });
    const first = document();
    cache.collectionChanged('a', 'users');
    release();
    expect(await first).toBe('todos #1');
    expect(await document()).toBe('todos #2');
    expect(await document()).toBe('todos #2');
  });
});
