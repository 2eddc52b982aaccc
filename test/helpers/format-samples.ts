/**
 * Records as the engine stores them, covering what an export must carry back on import: nested
 * objects, unicode, separators and quotes, whitespace, numbers, booleans, null, arrays, missing
 * fields and awkward keys. `expected` is what import gives: the same minus `id` and `_sandbox`.
 */
export const samples: Record<string, unknown>[] = [
  {
    id: 'local-1',
    _sandbox: 'sb',
    name: 'Ada',
    age: 36,
    balance: -12.5,
    ratio: 0.1,
    big: 9007199254740991,
    tiny: 1.5e-7,
    huge: 1e21,
    active: true,
    deleted: false,
    address: { city: 'Zürich', geo: { lat: 47.37, lng: -8.54 } },
    tags: ['a', 'b,c', 'd "e"'],
    items: [{ sku: 'x', qty: 2 }],
    nothing: null,
  },
  {
    id: 'local-2',
    _sandbox: 'sb',
    name: 'Emoji 🎉👩‍👩‍👧 ok',
    rtl: 'مرحبا بالعالم',
    combining: 'e\u0301 n\u0303 Å',
    comma: 'a, b, c',
    quotes: 'say "hi" and \'bye\'',
    newline: 'line1\nline2\r\nline3\rline4',
    spaces: '  padded  ',
    tab: '\tindented',
    empty: '',
    address: { city: 'Paris' },
  },
  { id: 'local-3', _sandbox: 'sb' },
  {
    id: 'local-4',
    _sandbox: 'sb',
    'dotted.key': 1,
    'back\\slash': 'x',
    nested: { 'a.b': { c: true }, deep: { deeper: { deepest: 'yes' } } },
    emptyObject: {},
    emptyKey: { '': 1, other: 2 },
    nestedArray: [[1, 2], [], {}],
    ...JSON.parse('{"__proto__": {"polluted": true}}'),
  },
];

export const expected = samples.map(({ id: _id, _sandbox, ...rest }) => rest);
