import { defineConfig } from 'vitest/config';

// Standalone runs (`npx vitest run --root packages/cli`): resolve workspace packages to their
// TypeScript sources, like the root vitest.workspace.ts does.
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
});
