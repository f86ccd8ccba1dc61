// The trigger: evaluates every check against src/stats.js and prints one line per check, then
// `passed: N` / `failed: M`. It always exits 0 (a scorecard, not a gate): the number of passing
// checks is the scalar.
import { performance } from 'node:perf_hooks';
import * as stats from '../src/stats.js';
import { checks } from '../test/checks.js';

const t0 = performance.now();
let passed = 0;
for (const [expr, expected] of checks) {
  const actual = new Function(...Object.keys(stats), `return ${expr};`)(...Object.values(stats));
  if (Object.is(actual, expected)) {
    passed += 1;
    console.log(`PASS ${expr} = ${JSON.stringify(expected)}`);
  } else {
    console.log(`FAIL ${expr}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}
console.log(`WARN scorecard timing is not meaningful below 1ms (took ${Math.ceil(performance.now() - t0)}ms)`);
console.log(`passed: ${passed}`);
console.log(`failed: ${checks.length - passed}`);
