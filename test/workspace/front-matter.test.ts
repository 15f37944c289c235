// The front matter subset skills and prompt commands use, read strictly: what it accepts, and
// that anything outside it is an error naming the line rather than a guess.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FrontMatterError, parseFrontMatter } from '../../src/workspace/index.js';

function fields(text: string): Record<string, string> {
  const parsed = parseFrontMatter(text);
  assert.ok(parsed);
  return parsed.fields;
}

describe('front matter', () => {
  test('plain, quoted and block values; the body after the closing line', () => {
    const parsed = parseFrontMatter(
      [
        '---',
        'name: pdf-tools   # a comment',
        "single: 'it''s: here'",
        'double: "tab\\there \\"q\\""',
        'folded: >',
        '  one',
        '  two',
        '',
        '  three',
        'literal: |-',
        '  a',
        '    b',
        'long: a plain value',
        '  that goes on',
        '---',
        'Body text.',
      ].join('\n'),
    );
    assert.ok(parsed);
    assert.deepEqual(parsed.fields, {
      name: 'pdf-tools',
      single: "it's: here",
      double: 'tab\there "q"',
      folded: 'one two\nthree\n',
      literal: 'a\n  b',
      long: 'a plain value that goes on',
    });
    assert.equal(parsed.body, 'Body text.');
  });

  test('lists and maps are accepted and left unread', () => {
    assert.deepEqual(
      fields('---\nname: x\nallowed-tools:\n  - Read\n  - Grep\nmetadata:\n  version: 1\ntags: [a, b]\ndescription: d\n---\n'),
      { name: 'x', description: 'd' },
    );
  });

  test('CRLF line ends and a byte order mark are read', () => {
    assert.deepEqual(fields('\uFEFF---\r\nname: x\r\ndescription: y\r\n---\r\nbody'), { name: 'x', description: 'y' });
  });

  test('a file without front matter is null', () => {
    assert.equal(parseFrontMatter('# Title\n---\n'), null);
    assert.equal(parseFrontMatter(''), null);
  });

  for (const [what, text, pattern] of [
    ['no closing line', '---\nname: x\n', /no closing ---/],
    ['an unterminated quote', '---\ndescription: "open\n---\n', /line 2: an unterminated double-quoted/],
    ['a duplicate key', '---\nname: a\nname: b\n---\n', /line 3: the key name appears twice/],
    ['a line that is no key', '---\njust words\n---\n', /line 2: not a `key: value` line/],
    ['an unknown escape', '---\nd: "\\q"\n---\n', /unknown escape/],
    ['an alias', '---\nd: *anchor\n---\n', /may not start with \*/],
    ['a tab', '---\nd:\tx\n---\n', /not a `key: value` line|tab/],
  ] as const) {
    test(`refuses ${what}`, () => {
      assert.throws(
        () => parseFrontMatter(text),
        (error: unknown) => error instanceof FrontMatterError && pattern.test(error.message),
      );
    });
  }
});
