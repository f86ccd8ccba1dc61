/**
 * @loop/core/files: durable file writes (atomic JSON/text, durable append, directory sync), the
 * workspace lock, the per-candidate record-data log and TSV cell sanitising. For adapter authors who
 * write results logs, state stores or other files a crash must not tear.
 *
 * @packageDocumentation
 * @module @loop/core/files
 */
export { sanitizeCell } from './contracts/results-log.js';
export { writeJsonAtomic, writeTextAtomic, readJson, appendDurable, syncDirectory } from './files/state-file.js';
export { withRecordData, readRecordData } from './files/record-data-log.js';
export type { RecordDataOptions } from './files/record-data-log.js';
export { acquireLock, isLocked } from './files/lock.js';
export type { WorkspaceLock, AcquireLockOptions } from './files/lock.js';
