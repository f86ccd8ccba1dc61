import { z } from 'zod';

/** Where a command may be confined with bubblewrap: auto (when it works here), bwrap (required), none. */
export const sandboxMode = z.enum(['auto', 'bwrap', 'none']);
/** The `writable:` list of a sandboxed command: extra paths it may write. */
export const writablePaths = z
  .array(z.string().min(1))
  .default([])
  .describe(
    'Extra paths writable inside the sandbox: relative to dir, absolute, or ' +
      '~/... (e.g. "~/.claude" for an agent CLI that keeps state there).',
  );

/** zod schema of the `harness: { sandbox, writable, network }` block (the run command and the checks command). */
export const harnessSandboxSchema = z
  .object({
    sandbox: sandboxMode
      .default('none')
      .describe(
        'Confine the run and checks commands with bubblewrap: auto (when it ' +
          'works here), bwrap (required: an error where it does not work), none. ' +
          'Default none: a harness often needs GPUs, downloads or home caches a ' +
          'sandbox would take away.',
      ),
    writable: writablePaths,
    network: z.boolean().default(false).describe('Allow network inside the sandbox. Default false.'),
  })
  .strict();
