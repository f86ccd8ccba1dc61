/** Files of a run, all excluded from git via `.git/info/exclude`. */
export const RUN_FILES = {
  results: 'results.tsv',
  state: '.loop/state.json',
  agentLog: '.loop/agent.log',
  runPid: '.loop/run.pgid',
  logs: '.loop/logs',
  records: '.loop/records.jsonl',
} as const;
