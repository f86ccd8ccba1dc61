import { describe, expect, it } from 'vitest';
import { extractBlocks, markedBlocks } from './extract-blocks.js';
import { applyReplacements, parseMarker } from './marker.js';

const page = [
  '# Title', //                                  1
  '', //                                         2
  '<!-- docs-test -->', //                       3
  '```sh', //                                    4
  'echo one', //                                 5
  '```', //                                      6
  '', //                                         7
  '```ts', //                                    8
  'const unmarked = 1;', //                      9
  '```', //                                     10
  '<!-- docs-test: {"skip": "needs claude"} -->', // 11
  '````bash', //                                12
  '```', //                                     13
  '````', //                                    14
  '',
].join('\n');

describe('extractBlocks', () => {
  it('finds every fence with its 1-based fence line, normalised language and the marker before it', () => {
    const blocks = extractBlocks('p.md', page);
    expect(blocks.map((b) => [b.line, b.lang, b.code, b.options])).toEqual([
      [4, 'sh', 'echo one\n', {}],
      [8, 'ts', 'const unmarked = 1;\n', undefined],
      [12, 'sh', '```\n', { skip: 'needs claude' }],
    ]);
    expect(markedBlocks('p.md', page).map((b) => b.line)).toEqual([4, 12]);
  });

  it('refuses a marker that is not directly followed by a fence, naming file:line', () => {
    expect(() => extractBlocks('p.md', '<!-- docs-test -->\n\n```sh\ntrue\n```\n')).toThrow(
      'p.md:1: docs-test marker is not followed by a code fence',
    );
  });

  it('refuses a marker before a fence that is neither sh nor ts', () => {
    expect(() => extractBlocks('p.md', 'x\n<!-- docs-test -->\n```yaml\na: 1\n```\n')).toThrow(
      'p.md:2: docs-test marker before a "yaml" fence',
    );
  });

  it('refuses malformed marker options, naming file:line and the option', () => {
    expect(() => extractBlocks('p.md', '<!-- docs-test: {"skp": "x"} -->\n```sh\n```\n')).toThrow(
      'p.md:1: docs-test marker: unknown option "skp"',
    );
    expect(() => extractBlocks('p.md', '<!-- docs-test: {skip} -->\n```sh\n```\n')).toThrow(
      'p.md:1: docs-test marker options are not JSON',
    );
    expect(() => extractBlocks('p.md', '<!-- docs-test: {"exit": "2"} -->\n```sh\n```\n')).toThrow(
      '"exit" must be a number',
    );
  });

  it('refuses a fence that is never closed', () => {
    expect(() => extractBlocks('p.md', 'a\n```sh\ntrue\n')).toThrow('p.md:2: code fence is never closed');
  });
});

describe('markers', () => {
  it('reads no options from a bare marker and the JSON object from one with options', () => {
    expect(parseMarker('<!-- docs-test -->')).toEqual({});
    expect(parseMarker('<!-- docs-test: {"exit": 2, "env": {"A": "1"}} -->')).toEqual({ exit: 2, env: { A: '1' } });
    expect(parseMarker('<!-- another comment -->')).toBeUndefined();
  });

  it('applies replacements in order and refuses one whose text is not in the block (a stale marker)', () => {
    expect(
      applyReplacements('pnpm demo\npnpm test\n', [
        ['demo', 'demo --iterations 1'],
        ['pnpm test\n', ''],
      ]),
    ).toBe('pnpm demo --iterations 1\n');
    expect(() => applyReplacements('pnpm demo\n', [['--steps 3000', '--steps 200']])).toThrow(
      'replace text not found in the block: "--steps 3000"',
    );
  });
});
