import { existsSync, readFileSync } from 'node:fs';
import { join, normalize, posix } from 'node:path';
import MiniSearch from 'minisearch';
import {
  dimension,
  UnparseableTargetError,
  weightedTotal,
  type DimensionScore,
  type Evaluation,
} from './evaluation.js';
import { readMemoryStore, type MemoryFile, type MemoryStore } from './memory-store.js';

/** The three dimensions of the memory evaluator and their weights (they sum to 1). */
export const MEMORY_WEIGHTS = { retrieval: 0.5, signal_noise: 0.3, index: 0.2 } as const;

/** One question of a memory question set: a query, and text the retrieved files must contain. */
export interface MemoryQuestion {
  /** What an agent would search its memory for. */
  readonly query: string;
  /** A string (case-insensitive, whitespace-normalised) one of the top files must contain to count as a hit. */
  readonly answer: string;
}

/** Options of {@link evaluateMemory}. */
export interface MemoryOptions {
  /** Score only `<dir>/<agent>` (seed 001: `--agent <name>`). @default the whole folder */
  agent?: string;
  /**
   * The question set (JSON: `[{ query, answer }]` or `{ questions: [...] }`). @default `<store>.questions.json` beside
   * the store folder
   */
  questions?: string;
  /** A hit is an answer in one of the top `k` files. @default 3 */
  topK?: number;
  /** The date stale entries are judged by (`expires: YYYY-MM-DD` before it). @default today (UTC) */
  now?: string;
  /** Near-duplicate threshold: Jaccard similarity of word 3-shingles. @default 0.8 */
  nearDuplicate?: number;
}

/** Tokens for BM25: lowercased latin words and CJK bigrams, repeats kept (term frequency counts). */
export function memoryTokens(text: string): string[] {
  const out: string[] = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const cjk = [...text].filter((c) => /[\u3400-\u9fff]/.test(c));
  for (let i = 0; i + 1 < cjk.length; i++) out.push(cjk[i]! + cjk[i + 1]!);
  return out;
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** Reads a question set file. @throws {UnparseableTargetError} when it is missing or malformed. */
export function readQuestions(path: string): MemoryQuestion[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UnparseableTargetError(`cannot read the question set ${path}: ${(error as Error).message}`);
  }
  const list = Array.isArray(raw) ? raw : (raw as { questions?: unknown })?.questions;
  if (
    !Array.isArray(list) ||
    list.length === 0 ||
    !list.every((q) => typeof q?.query === 'string' && typeof q?.answer === 'string')
  ) {
    throw new UnparseableTargetError(
      `the question set ${path} must be a non-empty list of { "query": string, "answer": string }`,
    );
  }
  return list as MemoryQuestion[];
}

function retrievalDim(store: MemoryStore, questions: readonly MemoryQuestion[], k: number): DimensionScore {
  const search = new MiniSearch<{ id: string; title: string; text: string }>({
    fields: ['title', 'text'],
    tokenize: memoryTokens,
    processTerm: (t) => t,
    searchOptions: { boost: { title: 2 }, tokenize: memoryTokens, processTerm: (t) => t },
  });
  search.addAll(
    store.files.map((f) => ({
      id: f.path,
      title: `${f.path} ${typeof f.data.name === 'string' ? f.data.name : ''} ${/^#\s+(.*)$/m.exec(f.body)?.[1] ?? ''}`,
      text: f.body,
    })),
  );
  const byPath = new Map(store.files.map((f) => [f.path, norm(f.text)]));
  const notes: string[] = [];
  let hits = 0;
  for (const q of questions) {
    const top = search
      .search(q.query)
      .slice(0, k)
      .map((r) => String(r.id));
    if (top.some((p) => byPath.get(p)?.includes(norm(q.answer)))) hits++;
    else notes.push(`miss: "${q.query}" (top ${k}: ${top.join(', ') || 'nothing'})`);
  }
  notes.push(`${hits}/${questions.length} questions answered in the top ${k} (BM25)`);
  return dimension('retrieval', MEMORY_WEIGHTS.retrieval, (10 * hits) / questions.length, notes);
}

function shingles(body: string): Set<string> {
  const w = body.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const out = new Set<string>();
  for (let i = 0; i + 2 < w.length; i++) out.add(`${w[i]} ${w[i + 1]} ${w[i + 2]}`);
  if (w.length > 0 && w.length < 3) out.add(w.join(' '));
  return out;
}

function isStale(f: MemoryFile, now: string): boolean {
  const status = typeof f.data.status === 'string' ? f.data.status.toLowerCase() : '';
  if (['stale', 'obsolete', 'deprecated', 'superseded'].includes(status) || f.data.stale === true) return true;
  const expires =
    f.data.expires instanceof Date
      ? f.data.expires.toISOString().slice(0, 10)
      : typeof f.data.expires === 'string'
        ? f.data.expires
        : undefined;
  return expires !== undefined && expires < now;
}

function signalDim(store: MemoryStore, now: string, threshold: number): DimensionScore {
  if (store.files.length === 0) return dimension('signal_noise', MEMORY_WEIGHTS.signal_noise, 0, ['no memory files']);
  const notes: string[] = [];
  const kept: { path: string; exact: string; size: number }[] = [];
  const exactSeen = new Map<string, string>();
  // shingle -> indexes into kept: shared-shingle counts come from the postings, not from every pair
  const postings = new Map<string, number[]>();
  let noisy = 0;
  for (const f of store.files) {
    const content = f.body
      .replace(/^#+\s.*$/gm, '')
      .replace(/\s+/g, ' ')
      .trim();
    const exact = norm(f.body);
    let why: string | undefined;
    if (f.badFrontmatter) why = 'invalid frontmatter';
    else if (content.length < 20) why = 'empty';
    else if (isStale(f, now)) why = 'stale';
    const sh = shingles(f.body);
    if (!why && exactSeen.has(exact)) why = `duplicate of ${exactSeen.get(exact)}`;
    if (!why) {
      const shared = new Map<number, number>();
      for (const s of sh) for (const k of postings.get(s) ?? []) shared.set(k, (shared.get(k) ?? 0) + 1);
      for (const [k, inter] of [...shared].sort((a, b) => a[0] - b[0])) {
        if (inter / (kept[k]!.size + sh.size - inter || 1) >= threshold) {
          why = `near-duplicate of ${kept[k]!.path}`;
          break;
        }
      }
    }
    if (why) {
      noisy++;
      notes.push(`${f.path}: ${why}`);
      continue;
    }
    const k = kept.push({ path: f.path, exact, size: sh.size }) - 1;
    exactSeen.set(exact, f.path);
    for (const s of sh) {
      const list = postings.get(s);
      if (list) list.push(k);
      else postings.set(s, [k]);
    }
  }
  notes.push(`${store.files.length - noisy}/${store.files.length} files carry signal`);
  return dimension(
    'signal_noise',
    MEMORY_WEIGHTS.signal_noise,
    (10 * (store.files.length - noisy)) / store.files.length,
    notes,
  );
}

function links(f: MemoryFile): string[] {
  return [...f.body.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'));
}

function indexDim(store: MemoryStore): DimensionScore {
  if (!store.index)
    return dimension('index', MEMORY_WEIGHTS.index, 0, ['no index (MEMORY.md, INDEX.md or index.md at the root)']);
  const notes: string[] = [];
  const paths = new Set(store.files.map((f) => f.path));
  const listed = new Map<string, number>();
  let problems = 0;
  const resolveFrom = (from: string, target: string) =>
    posix.normalize(posix.join(posix.dirname(from), decodeURI(target.split('#')[0]!)));
  for (const t of links(store.index)) {
    const p = resolveFrom(store.index.path, t);
    if (!existsSync(join(store.root, normalize(p)))) {
      problems++;
      notes.push(`index links ${t}, which does not exist`);
    } else if (!paths.has(p)) {
      problems++;
      notes.push(`index lists ${t}, which is not a memory file`);
    } else listed.set(p, (listed.get(p) ?? 0) + 1);
  }
  for (const p of paths) {
    const n = listed.get(p) ?? 0;
    if (n === 0) notes.push(`${p} is not in the index`);
    if (n > 1) notes.push(`${p} is listed ${n} times`);
    if (n !== 1) problems++;
  }
  for (const f of store.files) {
    for (const t of links(f)) {
      const p = resolveFrom(f.path, t);
      if (!existsSync(join(store.root, normalize(p)))) {
        problems++;
        notes.push(`${f.path} links ${t}, which does not exist`);
      }
    }
  }
  notes.push(`${problems} index problems over ${paths.size} files`);
  return dimension('index', MEMORY_WEIGHTS.index, 10 * Math.max(0, 1 - problems / Math.max(1, paths.size)), notes);
}

/**
 * Scores a memory folder: `retrieval` is the share of the question set whose answer is in one of
 * the top-k files a BM25 search (MiniSearch) returns for the query; `signal_noise` the share of
 * files that are not empty, stale (`status: stale|obsolete|deprecated|superseded`, `stale: true`,
 * or `expires` before `now`), invalid, a duplicate or a near-duplicate of an earlier file;
 * `index` is 10 less a share per problem (a file not listed exactly once, a link to nothing or to
 * a non-memory file, a broken link in a memory file). Answers, not file names, define a hit, so
 * the proposer may merge, split and rename files (seed 001: CAN 重组目标目录结构).
 *
 * @throws {UnparseableTargetError} `TARGET_UNPARSEABLE` for a missing folder or question set.
 */
export async function evaluateMemory(dir: string, options: MemoryOptions = {}): Promise<Evaluation> {
  const root = options.agent ? join(dir, options.agent) : dir;
  const store = await readMemoryStore(root);
  const questions = readQuestions(options.questions ?? `${root.replace(/[/\\]+$/, '')}.questions.json`);
  const now = options.now ?? new Date().toISOString().slice(0, 10);
  const dimensions = [
    retrievalDim(store, questions, options.topK ?? 3),
    signalDim(store, now, options.nearDuplicate ?? 0.8),
    indexDim(store),
  ];
  return { evaluator: 'memory', target: root, score: weightedTotal(dimensions), dimensions };
}
