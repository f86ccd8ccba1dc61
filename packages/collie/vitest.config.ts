import { defineConfig } from 'vitest/config';

// Standalone config for `vitest run --config packages/collie/vitest.config.ts`; the root
// vitest.workspace.ts needs a `project('collie', 'packages/collie', 60_000)` line to include it.
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
});
