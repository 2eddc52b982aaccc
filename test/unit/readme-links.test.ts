import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/server.js';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

describe('README.md', () => {
  it('every [text](#anchor) link names a heading of the README', () => {
    // Fenced code is not Markdown: a `#` line there is no heading and a `](#` no link.
    const text = readFileSync(join(repoRoot, 'README.md'), 'utf8').replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
    const headings = new Set(text.match(/^#{1,6} .+$/gm)!.map((line) => anchor(line.replace(/^#+ /, ''))));
    // A link's text may wrap onto the next line.
    const links = [...text.matchAll(/\]\(#([^)\s]+)\)/g)].map((match) => match[1]);
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((link) => !headings.has(link))).toEqual([]);
  });
});
