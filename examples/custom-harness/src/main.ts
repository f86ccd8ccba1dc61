import { loadCorpus, tuneGzip } from './gzip-tuning.js';

const summary = await tuneGzip(loadCorpus(), Number(process.argv[2] ?? 40));
console.log(
  `gzip size: baseline ${summary.baseline} bytes -> best ${summary.best} bytes after ${summary.iterations} iterations`,
);
for (const k of summary.kept) console.log(`  -${k.improvement} bytes  iter ${k.iteration}  ${k.description}`);
