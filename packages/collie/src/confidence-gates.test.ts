import { describe, expect, it } from 'vitest';
import { type FixRecord } from './index.js';
import { deepVerifyGate, routeRecords, triageGate } from './confidence-gates.js';

const fix = (over: Partial<FixRecord>): FixRecord => ({
  id: 'FIX-001',
  kind: 'correctness',
  severity: 3,
  fix_confidence: 4,
  root_cause: 'cause',
  reproduction_test: 'test',
  fix_outline: '',
  why_root_cause: '',
  dependencies: [],
  uncertainty_tag: 'none',
  key_files: [],
  ...over,
});

describe('seed 000 gates G8 and G2', () => {
  it('G8 triage: Real or Unclear with confidence >= 3 proceeds to Stage 4b Deep Verify', () => {
    expect(triageGate({ verdict: 'Real', confidence: 3 })).toEqual({ route: 'deep-verify' });
    expect(triageGate({ verdict: 'Unclear', confidence: 5 })).toEqual({ route: 'deep-verify' });
  });

  it('G8 triage: Real or Unclear with confidence <= 2 goes to DEFERRED tagged triage_low_confidence', () => {
    expect(triageGate({ verdict: 'Real', confidence: 2 })).toEqual({ route: 'deferred', tag: 'triage_low_confidence' });
    expect(triageGate({ verdict: 'Unclear', confidence: 1 })).toEqual({
      route: 'deferred',
      tag: 'triage_low_confidence',
    });
  });

  it('G8 triage: Discarded is dropped silently at any confidence and never written to DEFERRED', () => {
    for (const confidence of [1, 3, 5])
      expect(triageGate({ verdict: 'Discarded', confidence })).toEqual({ route: 'drop' });
  });

  it(
    'G8 deep verify: fix_confidence <= 2 goes to DEFERRED tagged ' + 'deep_verify_low_confidence (checked before G2)',
    () => {
      expect(deepVerifyGate(fix({ fix_confidence: 2 }))).toEqual({
        route: 'deferred',
        tag: 'deep_verify_low_confidence',
      });
      expect(deepVerifyGate(fix({ fix_confidence: 1, root_cause: '' }))).toEqual({
        route: 'deferred',
        tag: 'deep_verify_low_confidence',
      });
    },
  );

  it('G2: an empty (or blank) root_cause or reproduction_test goes to DEFERRED tagged g2_incomplete', () => {
    expect(deepVerifyGate(fix({ root_cause: '' }))).toEqual({ route: 'deferred', tag: 'g2_incomplete' });
    expect(deepVerifyGate(fix({ reproduction_test: '  \n' }))).toEqual({ route: 'deferred', tag: 'g2_incomplete' });
  });

  it('G8 + G2: fix_confidence >= 3 with both fields non-empty is eligible for Stage 5.0', () => {
    expect(deepVerifyGate(fix({ fix_confidence: 3 }))).toEqual({ route: 'eligible' });
  });

  it('routing a whole iteration: to-verify, eligible, DEFERRED with tags, dropped', () => {
    const r = routeRecords(
      [
        { issue: 'ISSUE-001', verdict: 'Real', confidence: 4, rationale: '' },
        { issue: 'ISSUE-002', verdict: 'Unclear', confidence: 2, rationale: '' },
        { issue: 'ISSUE-003', verdict: 'Discarded', confidence: 1, rationale: '' },
      ],
      [fix({ id: 'FIX-001' }), fix({ id: 'FIX-002', root_cause: '' })],
    );
    expect(r.toVerify).toEqual(['ISSUE-001']);
    expect(r.eligible.map((f) => f.id)).toEqual(['FIX-001']);
    expect(r.deferred).toEqual([
      { id: 'ISSUE-002', tag: 'triage_low_confidence' },
      { id: 'FIX-002', tag: 'g2_incomplete' },
    ]);
    expect(r.dropped).toEqual(['ISSUE-003']);
  });
});
