// What the benchmark asks of the servers. Each scenario names its subjects (the reference and
// one or two real servers), the requests each gets, how the reference's bytes are captured, and
// its target. Cached rows repeat one request, as a page reloaded by its users would; "uncached"
// rows add `_=<n>` (ignored by the query parser, jQuery's cache buster) so no answer repeats.

export const oneCookie = 'one';
const writerCookie = 'writer';
const cookieOf = (key) => ({ cookie: `svc_identity=${key}` });
const postBody = JSON.stringify({ user_id: 1, title: 'Bench post', body: 'Written by the benchmark.' });

let tag = 0;
/** A path no earlier request used, so the server's answer cache cannot answer it. */
const fresh = (path) => `${path}${path.includes('?') ? '&' : '?'}_=${++tag}`;

/**
 * A read of one path: the same request every time (`cached`), or a fresh one each time. A
 * `prebuilt` request is encoded once by autocannon; otherwise every request is built anew, which
 * costs the load generator more, so subjects compared with each other must all be built alike.
 */
function read(path, { cached, prebuilt }) {
  return (subject) => {
    if (cached && prebuilt) return { requests: [{ method: 'GET', path, headers: cookieOf(subject.cookie()) }] };
    return {
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => ({ ...req, path: cached ? path : fresh(path), headers: cookieOf(subject.cookie()) }),
        },
      ],
    };
  };
}

const captureGet = (path) => async (fetchAnswer) => ({ GET: await fetchAnswer('GET', fresh(path), oneCookie) });

/** The REST list page's records and pagination as a GraphQL document (issue 31 compares the two). */
const graphqlList = JSON.stringify({
  query: '{ posts(limit: 10) { data { id user_id title body created_at _sandbox } pagination { page limit total totalPages hasNextPage hasPrevPage nextCursor } } }',
});

/** The settings a server needs for the write rows (fresh sandboxes, creates in mix sandboxes) not to meet the caps. */
export const benchConfig = { limits: { createdPerCollection: 1_000_000, maxSandboxes: 1_000_000 } };

/**
 * The e2e mix: a random one of `keys` per request (each holds 20 rows), doing what a test suite's
 * pages do: lists, a record, a search, creates and changes.
 */
function mixRequests(keys) {
  const random = (n) => Math.floor(Math.random() * n);
  const kinds = [
    ...Array(3).fill(() => ({ method: 'GET', path: '/api/v1/posts?limit=10' })),
    () => ({ method: 'GET', path: '/api/v1/comments?limit=10' }),
    ...Array(2).fill(() => ({ method: 'GET', path: `/api/v1/users/${1 + random(25)}` })),
    () => ({ method: 'GET', path: '/api/v1/posts?q=sunt' }),
    () => ({ method: 'POST', path: '/api/v1/posts', body: postBody }),
    () => ({ method: 'PATCH', path: `/api/v1/todos/${1 + random(200)}`, body: JSON.stringify({ completed: true }) }),
    () => ({ method: 'GET', path: `/api/v1/comments/${1 + random(500)}` }),
  ];
  return () => ({
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          const { method, path, body } = kinds[random(kinds.length)]();
          const headers = { ...cookieOf(keys[random(keys.length)]), ...(body ? { 'content-type': 'application/json' } : {}) };
          return { ...req, method, path, headers, body };
        },
      },
    ],
  });
}

/**
 * @param {{ busyKeys: string[], mixKeys?: string[] }} options the busy server's sandbox keys
 *   (each holds 20 rows); the mix's sandboxes (the first 200 busy ones unless given)
 */
export function buildScenarios({ busyKeys, mixKeys = busyKeys.slice(0, 200) }) {
  const list = '/api/v1/posts?limit=10';
  const search = '/api/v1/posts?q=sunt';
  const byId = '/api/v1/posts/1';
  const ratio = (min) => ({ kind: 'ratio', min });
  const same = { cached: true, prebuilt: true };
  const each = { cached: false, prebuilt: false };
  // The busy server's cookie changes per request, so its paired runs build every request too.
  const sameBuilt = { cached: true, prebuilt: false };
  const pair = ['one'];
  const busyPair = ['one', 'busy'];
  let resetNext = 0;
  let writerRuns = 0;
  const busyName = `list page, ${busyKeys.length.toLocaleString('en-US')} busy sandboxes`;

  return [
    { name: 'list page', subjects: pair, requests: read(list, same), capture: captureGet(list), target: ratio(0.5) },
    {
      name: 'GraphQL list page',
      subjects: pair,
      // The same request every time, as a page's client sends it: its answer comes from the answer cache.
      requests: (subject) => ({
        requests: [{ method: 'POST', path: '/api/v1/graphql', headers: { ...cookieOf(subject.cookie()), 'content-type': 'application/json' }, body: graphqlList }],
      }),
      capture: async (fetchAnswer) => ({ POST: await fetchAnswer('POST', '/api/v1/graphql', oneCookie, graphqlList) }),
    },
    { name: 'list page, uncached', subjects: pair, requests: read(list, each), capture: captureGet(list), target: ratio(0.5) },
    {
      name: 'filtered list',
      subjects: pair,
      requests: read('/api/v1/posts?user_id=3&_sort=-id', same),
      capture: captureGet('/api/v1/posts?user_id=3&_sort=-id'),
    },
    { name: 'search', subjects: pair, requests: read(search, same), capture: captureGet(search), target: ratio(0.4) },
    { name: 'search, uncached', subjects: pair, requests: read(search, each), capture: captureGet(search), target: ratio(0.4) },
    { name: 'get by id', subjects: pair, requests: read(byId, same), capture: captureGet(byId), target: ratio(0.5) },
    { name: 'get by id, uncached', subjects: pair, requests: read(byId, each), capture: captureGet(byId), target: ratio(0.5) },
    {
      name: busyName,
      subjects: busyPair,
      // Steady use: every sandbox's page is in the server's answer cache before timing starts.
      prime: true,
      requests: read(list, sameBuilt),
      capture: captureGet(list),
      target: { kind: 'p50', of: 'busy', vs: 'one', max: 1.2 },
    },
    {
      name: `${busyName}, uncached`,
      subjects: busyPair,
      requests: read(list, each),
      capture: captureGet(list),
      target: { kind: 'p50', of: 'busy', vs: 'one', max: 1.2 },
    },
    {
      name: 'create then delete',
      subjects: pair,
      // A new sandbox per run: a run that stops between a POST and its DELETE leaves records
      // behind, and a few runs' leftovers would reach the cap on created records.
      requests: () => {
        const writer = `${writerCookie}-${++writerRuns}`;
        return {
          requests: [
            {
              method: 'POST',
              path: '/api/v1/posts',
              headers: { ...cookieOf(writer), 'content-type': 'application/json' },
              body: postBody,
              onResponse: (_status, body, context) => {
                context.id = body.startsWith('{') ? JSON.parse(body).id : 'missing';
              },
            },
            {
              method: 'DELETE',
              setupRequest: (req, context) => ({ ...req, path: `/api/v1/posts/${context.id}`, headers: cookieOf(writer) }),
            },
          ],
        };
      },
      capture: async (fetchAnswer) => {
        const POST = await fetchAnswer('POST', '/api/v1/posts', writerCookie, postBody);
        const id = JSON.parse(Buffer.from(POST.body, 'base64').toString()).id;
        return { POST, DELETE: await fetchAnswer('DELETE', `/api/v1/posts/${id}`, writerCookie) };
      },
    },
    {
      name: 'create in a fresh sandbox',
      subjects: pair,
      // Every request a sandbox never seen: the sandbox row, the record, its search terms, the change log.
      requests: () => ({
        requests: [
          {
            method: 'POST',
            path: '/api/v1/posts',
            body: postBody,
            setupRequest: (req) => ({ ...req, headers: { ...cookieOf(`fresh-${++tag}`), 'content-type': 'application/json' } }),
          },
        ],
      }),
      capture: async (fetchAnswer) => ({ POST: await fetchAnswer('POST', '/api/v1/posts', `fresh-${++tag}`, postBody) }),
    },
    {
      name: `e2e mix, ${mixKeys.length} sandboxes`,
      subjects: ['busy'],
      captureOn: 'busy',
      requests: mixRequests(mixKeys),
      capture: async (fetchAnswer) => ({
        GET: await fetchAnswer('GET', '/api/v1/posts?limit=10', mixKeys[0]),
        POST: await fetchAnswer('POST', '/api/v1/posts', mixKeys[0], postBody),
        PATCH: await fetchAnswer('PATCH', '/api/v1/todos/1', mixKeys[0], JSON.stringify({ completed: true })),
      }),
    },
    {
      // Each request resets a different busy sandbox (20 rows), once: a fixed number of requests,
      // not a duration. Warm-up resets an empty sandbox. Run last: it empties the busy sandboxes.
      name: 'reset, 20 rows each',
      subjects: ['busy'],
      captureOn: 'busy',
      amount: busyKeys.length,
      requests: (subject, warmup) => ({
        requests: [
          {
            method: 'POST',
            path: '/api/v1/sandbox/reset',
            setupRequest: (req) => {
              const key = warmup || subject.kind === 'reference' ? 'warm-reset' : busyKeys[resetNext++ % busyKeys.length];
              return { ...req, headers: cookieOf(key) };
            },
          },
        ],
      }),
      capture: async (fetchAnswer) => ({ POST: await fetchAnswer('POST', '/api/v1/sandbox/reset', 'capture-reset') }),
    },
  ];
}
