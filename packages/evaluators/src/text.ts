/** A markdown heading: its level (1-6), its text and its 0-based line number. */
export interface Heading {
  readonly level: number;
  readonly text: string;
  readonly line: number;
}

/** The ATX headings (`# ...` to `###### ...`) of a markdown text, outside fenced code blocks. */
export function headings(text: string): Heading[] {
  const out: Heading[] = [];
  let fenced = false;
  text.split(/\r?\n/).forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) out.push({ level: m[1]!.length, text: m[2]!, line: i });
  });
  return out;
}

/** The lines of `text` outside fenced code blocks. */
export function proseLines(text: string): string[] {
  let fenced = false;
  return text.split(/\r?\n/).filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** The fenced code blocks of `text` (their contents, without the fences). */
export function codeBlocks(text: string): string[] {
  return [...text.matchAll(/^\s*(```|~~~)[^\n]*\n([\s\S]*?)^\s*\1\s*$/gm)].map((m) => m[2] ?? '');
}

const STOP = new Set(
  (
    'the and for with that this from into your you are was were has have had ' +
    'not but can will would should could when what which who how why all any ' +
    'each use used uses using its our their them they then than there here ' +
    'also only just like over under about after before very more most such ' +
    'per via'
  ).split(' '),
);

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

/**
 * Content tokens for the lexical matchers: lowercased latin words of 3+ letters that are not
 * stop words, with a plural `s` dropped, plus every pair of adjacent CJK characters (bigrams,
 * since CJK text has no spaces).
 */
export function tokens(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[a-z0-9][a-z0-9-]*/g)) {
    let w = m[0];
    if (w.length < 3 || STOP.has(w)) continue;
    if (w.length > 4 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
    out.add(w);
  }
  const chars = [...text];
  for (let i = 0; i + 1 < chars.length; i++) {
    if (CJK.test(chars[i]!) && CJK.test(chars[i + 1]!)) out.add(chars[i]! + chars[i + 1]!);
  }
  return out;
}

/** The number of words: latin words plus CJK characters (each counts as one). */
export function wordCount(text: string): number {
  const latin = text.match(/[A-Za-z0-9][A-Za-z0-9'_-]*/g)?.length ?? 0;
  const cjk = [...text].filter((c) => CJK.test(c)).length;
  return latin + cjk;
}
