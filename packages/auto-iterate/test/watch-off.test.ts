// Issue 31: the structural-edit and hostile-write tests of auto-iterate (which watch by default)
// again with `watch: false`: every scan walks the whole tree, and every test must pass the same.
import { watchSetting } from './watch-setting.js';

watchSetting.watch = false;
await import('./auto-iterate.test.js');
await import('./surface.test.js');
