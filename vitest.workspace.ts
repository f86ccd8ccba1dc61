import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Every package and example is one test project. The `source` export condition resolves
// workspace packages to their TypeScript sources, so tests need no build.
// @loop/internal-test-utils is aliased rather than declared by @loop/core, which would make a dependency cycle.
const testUtils = fileURLToPath(new URL('./packages/internal-test-utils/src/index.ts', import.meta.url));
const shared = {
  resolve: { conditions: ['source'], alias: { '@loop/internal-test-utils': testUtils } },
  ssr: { resolve: { conditions: ['source'] } },
};

const project = (name: string, root: string, timeout = 20_000) => ({
  ...shared,
  test: {
    name,
    root,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: timeout,
    hookTimeout: timeout,
  },
});

export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the cores: one on the 2-core CI machine, where the
    // suite then ran its files one at a time. Most tests wait on real processes, so two share well.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      project('core', 'packages/core'),
      project('rollback-git', 'packages/rollback-git', 60_000),
      project('evaluators', 'packages/evaluators', 60_000),
      project('auto-iterate', 'packages/auto-iterate', 60_000),
      project('internal-test-utils', 'packages/internal-test-utils'),
      project('testing', 'packages/testing'),
      project('autotune', 'packages/autotune', 60_000),
      project('rollback-snapshot', 'packages/rollback-snapshot', 60_000),
      project('autoresearch', 'packages/autoresearch', 60_000),
      project('cli', 'packages/cli', 120_000),
      project('collie', 'packages/collie', 60_000),
      project('example-collie', 'examples/collie', 60_000),
      project('example-autoresearch', 'examples/autoresearch', 60_000),
      project('example-autotune', 'examples/autotune', 60_000),
      project('example-ml-tuning', 'examples/ml-tuning', 120_000),
      project('example-custom-harness', 'examples/custom-harness'),
      project('example-agent-host', 'examples/agent-host', 120_000),
      project('example-policy-testing', 'examples/policy-testing'),
      project('example-skill-tuning', 'examples/skill-tuning', 60_000),
      project('example-memory-tuning', 'examples/memory-tuning', 60_000),
      project('workers-bullmq', 'packages/workers-bullmq', 60_000),
      project('mcp', 'packages/mcp', 60_000),
      project('docs-test', 'packages/docs-test', 300_000),
    ],
  },
});
