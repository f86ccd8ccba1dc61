import { z } from 'zod';
import { TARGET_TYPES } from './cli-constants.js';

/** zod schema of the `target: { type, path, agent?, questions? }` block. */
export const targetSchema = z
  .object({
    type: z
      .enum(TARGET_TYPES)
      .describe(
        'skill: a SKILL.md file; skill-full: a skill folder (SKILL.md and its ' +
          'scripts); memory: an agent memory folder; code: a code file with your ' +
          'own runCommand.',
      ),
    path: z
      .string()
      .min(1)
      .describe('The target, relative to dir: the SKILL.md, the skill folder, the memory folder or the code file.'),
    agent: z
      .string()
      .regex(/^[^/\\]+$/, 'agent is one folder name')
      .optional()
      .describe('memory: score only the folder <path>/<agent> (seed 001: --agent NAME).'),
    questions: z
      .string()
      .min(1)
      .optional()
      .describe(
        'memory: the question set (JSON [{ query, answer }]), relative to dir; ' +
          'read-only. Default <memory folder>.questions.json beside the folder.',
      ),
  })
  .strict()
  .refine((t) => (t.agent === undefined && t.questions === undefined) || t.type === 'memory', {
    message: 'agent and questions are for type memory only',
  });
