// The names @loop/mcp's entry exports, values and types (issue 30: a lean surface; 29 before): the
// server, its options and the host contract with the shapes it takes and gives. The workspace,
// the held edit and the hosted session behind the tools stay behind the entry.
import { fileURLToPath } from 'node:url';
import { undocumentedExports } from '@loop/internal-test-utils';
import { describe, expect, it } from 'vitest';

const ENTRY = fileURLToPath(new URL('./index.ts', import.meta.url));

describe('the public entry of @loop/mcp', () => {
  it('the public entry exports exactly these names (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(ENTRY);
    expect([...exports].sort()).toEqual([
      'HostConfiguredRun',
      'HostEvent',
      'HostHostedLoop',
      'HostIterationLog',
      'HostLoadedConfig',
      'HostLogEntry',
      'HostPointKind',
      'HostRecord',
      'HostResultsData',
      'HostStepOutcome',
      'HostSummary',
      'HostTrial',
      'LOOP_MCP_RESOURCES',
      'LOOP_MCP_TOOLS',
      'LoopMcpHost',
      'LoopMcpServerOptions',
      'createLoopMcpServer',
      'serveLoopMcp',
    ]);
    expect(undocumented).toEqual([]);
  });
});
