// The public names of @loop/evaluators: adding or removing one is a deliberate change (issue 30).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { undocumentedExports } from '@loop/internal-test-utils';

describe('@loop/evaluators public entries', () => {
  it('@loop/evaluators: the entry exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(fileURLToPath(new URL('./index.ts', import.meta.url)));
    expect([...exports].sort()).toEqual([
      'DimensionScore',
      'EVALUATOR_TARGETS',
      'EvaluateOptions',
      'Evaluation',
      'EvaluatorInvocation',
      'EvaluatorInvocationOptions',
      'EvaluatorTarget',
      'MemoryOptions',
      'MemoryQuestion',
      'SkillDimension',
      'SkillFullOptions',
      'UnparseableTargetError',
      'VAGUE_WORDS',
      'evaluate',
      'evaluateMemory',
      'evaluateSkill',
      'evaluateSkillFull',
      'evaluateSkillText',
      'evaluatorInvocation',
      'evaluatorsPackageDir',
      'formatEvaluation',
      'main',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
});
