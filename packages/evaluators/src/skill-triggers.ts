import { tokens } from './text.js';

/** The trigger examples a SKILL.md gives: what should fire it, and what should not. */
export interface TriggerExamples {
  readonly positive: string[];
  readonly negative: string[];
}

/** A label line of negative examples (checked before the positive one). */
const NEGATIVE = new RegExp(
  String.raw`should\s*n[o']t\s+trigger|should not ` +
    String.raw`trigger|do\s*n[o']t\s+trigger|not\s+trigger|negative\s+examples?|negatives|负例|不应触发|不触发`,
  'i',
);
/** A label line of positive examples. */
const POSITIVE = /should\s+trigger|positive\s+examples?|positives|正例|应触发/i;
const BULLET = /^\s*(?:[-*•+]|\d+[.)])\s+(.*)$/;

function items(rest: string): string[] {
  return rest
    .split(/[、,;；，]|\s+\|\s+/)
    .map((s) => s.replace(/^[\s"'`“”「」『』()（）]+|[\s"'`“”「」『』()（）.。]+$/g, '').trim())
    .filter((s) => s.length > 0);
}

/**
 * Finds the trigger examples in a SKILL.md body. A line that names them ("should trigger",
 * "positive examples", 正例; "should not trigger", "negative examples", 负例) gives the examples
 * after its first `:` or `：`, split on `,` `;` `、` and stripped of quotes; a label line with
 * nothing after the colon takes the bullet lines under it instead.
 */
export function findTriggerExamples(body: string): TriggerExamples {
  const out: TriggerExamples = { positive: [], negative: [] };
  const lines = body.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const kind = NEGATIVE.test(line) ? 'negative' : POSITIVE.test(line) ? 'positive' : undefined;
    if (!kind) continue;
    const colon = line.search(/[:：]/);
    const rest = colon >= 0 ? line.slice(colon + 1) : '';
    if (rest.trim().length > 0) {
      out[kind].push(...items(rest));
      continue;
    }
    for (let j = i + 1; j < lines.length; j++) {
      const m = BULLET.exec(lines[j]!);
      if (!m) {
        if (lines[j]!.trim() === '' && j === i + 1) continue;
        break;
      }
      out[kind].push(...items(m[1]!));
    }
  }
  return out;
}

/** Where a description stops describing when to use the skill ("Not for ...", "不适用"). */
const NEGATION = /\b(?:not for|do not use|don't use|never for|not when)\b|不适用|不用于|不要用于/i;

/**
 * The lexical trigger matcher: does a request fire the skill? It does when it contains one of the
 * `triggers` phrases (case-insensitive, 2+ characters), or when more than half of its content
 * tokens (see {@link tokens}; at least two of them) appear in the part of `description` before a
 * negation such as "Not for" or 不适用.
 */
export function createTriggerMatcher(description: string, triggers: readonly string[]): (request: string) => boolean {
  const cut = description.search(NEGATION);
  const vocabulary = tokens(cut >= 0 ? description.slice(0, cut) : description);
  const phrases = triggers.map((t) => t.trim().toLowerCase()).filter((t) => [...t].length >= 2);
  return (request) => {
    const lower = request.toLowerCase();
    if (phrases.some((p) => lower.includes(p))) return true;
    const own = [...tokens(request)];
    if (own.length < 2) return false;
    return own.filter((t) => vocabulary.has(t)).length / own.length > 0.5;
  };
}
