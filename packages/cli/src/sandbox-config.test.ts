import { describe, expect, it } from 'vitest';
import { COLLIE_CONFIG_KIND } from './collie/load.js';
import { ConfigFileError, parseConfigText, parseConfigTextOf } from './load-config.js';

const agentConfig = `targetFiles: [train.mjs]
runCommand: node train.mjs
metricName: val_bpc
proposer:
  type: agent
  command: claude -p
  goal: lower val_bpc
`;

describe('sandbox fields of a config file', () => {
  it(
    'the agent is sandboxed by default (auto, network on) and the harness ' + 'block defaults to none without network',
    () => {
      const config = parseConfigText(`${agentConfig}harness: {}\n`, '/w/loop.config.yaml');
      expect(config.proposer).toMatchObject({ sandbox: 'auto', writable: [], network: true });
      expect(config.harness).toEqual({ sandbox: 'none', writable: [], network: false });
    },
  );

  it('sandbox, writable and network are read under proposer and harness', () => {
    const text =
      agentConfig.replace(
        'goal: lower val_bpc',
        'goal: lower val_bpc\n  sandbox: bwrap\n  writable: ["~/.claude"]\n  network: false',
      ) + 'harness:\n  sandbox: auto\n  writable: [cache]\n';
    const config = parseConfigText(text, '/w/loop.config.yaml');
    expect(config.proposer).toMatchObject({ sandbox: 'bwrap', writable: ['~/.claude'], network: false });
    expect(config.harness).toEqual({ sandbox: 'auto', writable: ['cache'], network: false });
  });

  it('an unknown sandbox mode is CONFIG_INVALID at its file:line naming the allowed values', () => {
    const text = agentConfig.replace('goal: lower val_bpc', 'goal: lower val_bpc\n  sandbox: docker');
    try {
      parseConfigText(text, '/w/loop.config.yaml');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigFileError);
      expect((error as ConfigFileError).code).toBe('CONFIG_INVALID');
      expect(String((error as Error).message)).toMatch(
        /loop\.config\.yaml:8.*proposer\.sandbox.*"auto".*"bwrap".*"none"/s,
      );
    }
  });

  it('a collie agent reads sandbox, writable and network too (default auto, [], network on)', () => {
    const base = 'projectId: app\ntask: t\nagent:\n  command: sh agent.sh\n';
    expect(parseConfigTextOf(COLLIE_CONFIG_KIND, base, '/w/collie.config.yaml').agent).toMatchObject({
      sandbox: 'auto',
      writable: [],
      network: true,
    });
    const set = parseConfigTextOf(
      COLLIE_CONFIG_KIND,
      `${base}  sandbox: none\n  writable: [.git]\n`,
      '/w/collie.config.yaml',
    );
    expect(set.agent).toMatchObject({ sandbox: 'none', writable: ['.git'] });
  });
});
