import { describe, expect, it } from 'vitest';
import { parseVerdict } from './prompts.js';

describe('flow review verdicts', () => {
  it(
    'the review verdict is the last `verdict:` line, markdown emphasis ' + 'tolerated; none means changes_requested',
    () => {
      expect(parseVerdict('**Verdict:** approve')).toEqual({ verdict: 'approve', found: true });
      expect(parseVerdict('verdict: approve\n...\nverdict: changes_requested')).toEqual({
        verdict: 'changes_requested',
        found: true,
      });
      expect(parseVerdict('LGTM')).toEqual({ verdict: 'changes_requested', found: false });
    },
  );
});
