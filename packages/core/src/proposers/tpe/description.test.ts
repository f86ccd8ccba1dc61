import { describe, expect, it } from 'vitest';
import { describeChanges, parseChanges } from './description.js';

const keys = new Set(['lr', 'optimizer', 'name', 'flag', 'batch']);

describe('proposal descriptions', () => {
  it('round-trip: every change is read back exactly, with the note the engine appends ignored', () => {
    const changes = [
      { key: 'lr', from: 0.0003, to: 6.1234e-7 },
      { key: 'optimizer', from: 'sgd', to: 'adam' },
      { key: 'name', from: 'two words, comma', to: '64' },
      { key: 'flag', from: undefined, to: true },
    ];
    const text = describeChanges(changes);
    expect(text).toBe(
      'lr 0.0003 -> 6.1234e-7, optimizer sgd -> adam, name "two words, comma" -> "64", flag unset -> true',
    );
    expect(parseChanges(`${text} (crash: out of memory)`, keys)).toEqual(changes);
  });

  it("a description that is not ours (another proposer's, a proposer failure) reads as undefined", () => {
    expect(parseChanges('proposer failed: boom', keys)).toBeUndefined();
    expect(parseChanges('baseline', keys)).toBeUndefined();
    expect(parseChanges('depth 2 -> 3', keys)).toBeUndefined();
  });
});
