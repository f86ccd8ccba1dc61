import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeResultsLog, describeStateStore } from '@loop/internal-test-utils';
import { createMemoryStateStore } from './no-op.js';
import { withRecordData } from '../files/record-data-log.js';
import { createMemoryResultsLog } from './results-log.js';
import { createJsonStateStore } from './state-store.js';

// The shared ResultsLog and StateStore rules (@loop/testing) on core's own implementations.
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'loop-conformance-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
};

describeResultsLog('memory', async () => {
  const log = createMemoryResultsLog();
  return { open: () => log };
});

describeResultsLog('memory + record-data sidecar', async () => {
  const { dir, cleanup } = await tempDir();
  const inner = createMemoryResultsLog();
  return { open: () => withRecordData(inner, { path: join(dir, '.loop', 'records.jsonl') }), cleanup };
});

describeStateStore('memory', async () => {
  const store = createMemoryStateStore();
  return { open: () => store };
});

describeStateStore('json', async () => {
  const { dir, cleanup } = await tempDir();
  const path = join(dir, 'state.json');
  return {
    open: () => createJsonStateStore(path),
    corrupt: () => writeFile(path, '{ "version": 1, "status": "runn'),
    unwritable: async () => {
      await writeFile(join(dir, 'a-file'), '');
      return createJsonStateStore(join(dir, 'a-file', 'state.json'));
    },
    cleanup,
  };
});
