// The deterministic reflection command: scores src/slug.js against criteria/ar-function.yaml and
// prints `{"scores":{"quality":<0-10>}}`. quality = 10 - 1.5 per `var` - 1 per line over 60 characters.
import { readFileSync } from 'node:fs';

const src = readFileSync('src/slug.js', 'utf8');
const vars = (src.match(/\bvar\b/g) ?? []).length;
const long = src.split('\n').filter((l) => l.length > 60).length;
const quality = Math.max(0, 10 - 1.5 * vars - long);
console.log(`vars ${vars}, lines over 60 chars ${long}`);
console.log(JSON.stringify({ scores: { quality } }));
