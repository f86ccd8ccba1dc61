/**
 * The `watch` option the structural-edit and hostile-write tests pass (issue 31): on by default
 * as in auto-iterate, off in watch-off.test.ts, which runs the same tests again.
 */
export const watchSetting = { watch: true };
