#!/usr/bin/env node
// Splits what Prettier cannot wrap: string literals, templates and comments on lines over the width.
// Usage: node scripts/wrap-long-lines.mjs [--width 120] <file.ts>...   (then run Prettier again)
// A long string becomes a parenthesised concatenation of pieces split at spaces (Prettier drops the
// parentheses where they are redundant); a long comment is rewrapped with the same prefix. Code inside a
// fenced block of a comment and tagged templates are left alone. The result is the same program.
import fs from 'node:fs';
import ts from 'typescript';

const args = process.argv.slice(2);
let width = 120;
if (args[0] === '--width') {
  width = Number(args[1]);
  args.splice(0, 2);
}
const PIECE = 72;

/** Split positions (offsets in `text`) at spaces so that no piece is longer than `max`. */
function cutPoints(text, max, allowed) {
  const cuts = [];
  let start = 0;
  while (text.length - start > max) {
    let cut = -1;
    for (let i = start + max; i > start + 20; i--) {
      if (text[i] === ' ' && text[i - 1] !== '\\' && allowed(i)) {
        cut = i + 1;
        break;
      }
    }
    if (cut < 0) {
      // No space early enough: the first one after the limit, so the piece is at least shorter than the line.
      for (let i = start + max + 1; i < text.length - 20; i++) {
        if (text[i] === ' ' && text[i - 1] !== '\\' && allowed(i)) {
          cut = i + 1;
          break;
        }
      }
    }
    if (cut < 0) break;
    cuts.push(cut);
    start = cut;
  }
  return cuts;
}

function skipLiteral(node) {
  const p = node.parent;
  if (!p) return true;
  if (ts.isTaggedTemplateExpression(p)) return true;
  if (ts.isLiteralTypeNode(p) || ts.isImportDeclaration(p) || ts.isExportDeclaration(p)) return true;
  if ((ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p) || ts.isPropertySignature(p)) && p.name === node)
    return true;
  if (ts.isEnumMember(p) || ts.isExternalModuleReference(p) || ts.isImportTypeNode(p)) return true;
  if (ts.isCallExpression(p) && p.expression.kind === ts.SyntaxKind.ImportKeyword) return true;
  if (ts.isModuleDeclaration(p)) return true;
  return false;
}

function wrapStrings(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lineStarts = sf.getLineStarts();
  const longLines = new Set();
  lineStarts.forEach((s, i) => {
    const e = i + 1 < lineStarts.length ? lineStarts[i + 1] - 1 : text.length;
    if (e - s > width) longLines.add(i);
  });
  const edits = [];
  const onLongLine = (node) => {
    const a = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
    const b = sf.getLineAndCharacterOfPosition(node.end).line;
    for (let l = a; l <= b; l++) if (longLines.has(l)) return true;
    return false;
  };
  const visit = (node) => {
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) &&
      !skipLiteral(node) &&
      onLongLine(node)
    ) {
      const start = node.getStart(sf);
      const src = text.slice(start, node.end);
      if (src.includes('\n')) return; // a multi-line template: its own lines are text
      // Offsets inside `src` that are literal text (not inside ${...}).
      const literal = new Set();
      if (ts.isTemplateExpression(node)) {
        const parts = [node.head, ...node.templateSpans.map((s) => s.literal)];
        for (const part of parts) {
          const ps = part.getStart(sf) - start;
          const pe = part.end - start;
          for (let i = ps + 1; i < pe - 2; i++) literal.add(i);
        }
      } else for (let i = 1; i < src.length - 1; i++) literal.add(i);
      const cuts = cutPoints(src, PIECE, (i) => literal.has(i) && literal.has(i + 1));
      if (cuts.length === 0) return;
      const q = src[0];
      let out = '';
      let prev = 0;
      for (const c of cuts) {
        out += src.slice(prev, c) + q + ' + ' + q;
        prev = c;
      }
      out += src.slice(prev);
      edits.push({ start, end: node.end, text: '(' + out + ')' });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  edits.sort((x, y) => y.start - x.start);
  let result = text;
  for (const e of edits) result = result.slice(0, e.start) + e.text + result.slice(e.end);
  return { text: result, count: edits.length };
}

function wrapWords(words, first, rest, max) {
  const lines = [];
  let cur = first;
  let empty = true;
  for (const w of words) {
    if (!empty && cur.length + 1 + w.length > max) {
      lines.push(cur);
      cur = rest + w;
    } else {
      cur += (empty ? '' : ' ') + w;
    }
    empty = false;
  }
  lines.push(cur);
  return lines;
}

/** Moves a `// comment` that follows code on a long line to its own line above that line. */
function liftTrailingComments(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = new Map();
  const visit = (node) => {
    for (const child of node.getChildren(sf)) {
      if (child.kind < ts.SyntaxKind.FirstNode || child.getChildCount(sf) === 0) {
        for (const r of ts.getTrailingCommentRanges(text, child.end) ?? []) {
          if (r.kind === ts.SyntaxKind.SingleLineCommentTrivia) found.set(r.pos, r);
        }
      } else visit(child);
    }
  };
  visit(sf);
  const lines = text.split('\n');
  const starts = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  let count = 0;
  for (const r of [...found.values()].sort((a, b) => b.pos - a.pos)) {
    const { line } = sf.getLineAndCharacterOfPosition(r.pos);
    const content = lines[line];
    if (content.length <= width) continue;
    const col = r.pos - starts[line];
    const code = content.slice(0, col).trimEnd();
    if (code.trim() === '') continue;
    const indent = /^\s*/.exec(content)[0];
    lines[line] = indent + content.slice(col) + '\n' + code;
    count++;
  }
  return { text: lines.join('\n'), count };
}

function wrapComments(text) {
  const lines = text.split('\n').flatMap((line) => {
    const one = /^(\s*)\/\*\* (.*) \*\/$/.exec(line);
    return one && line.length > width ? [one[1] + '/**', one[1] + ' * ' + one[2], one[1] + ' */'] : [line];
  });
  const out = [];
  let fence = false;
  let count = 0;
  for (const line of lines) {
    const jsdoc = /^(\s*\* )(.*)$/.exec(line);
    const slashes = /^(\s*\/\/ )(.*)$/.exec(line);
    const m = jsdoc ?? slashes;
    if (m && /^```/.test(m[2])) fence = !fence;
    if (line.length <= width || fence || !m) {
      out.push(line);
      continue;
    }
    // A list item or a tag keeps its first word on the first line and indents the rest under its text.
    const bullet = /^(- |\d+\. |@\w+ )/.exec(m[2]);
    const rest = m[1] + (bullet && !bullet[1].startsWith('@') ? ' '.repeat(bullet[1].length) : '');
    const words = m[2].split(' ').filter((w) => w !== '');
    out.push(...wrapWords(words, m[1], rest, width));
    count++;
  }
  return { text: out.join('\n'), count };
}

let strings = 0;
let comments = 0;
for (const file of args) {
  const before = fs.readFileSync(file, 'utf8');
  const s = wrapStrings(file, before);
  const t = liftTrailingComments(file, s.text);
  const c = wrapComments(t.text);
  comments += t.count;
  strings += s.count;
  comments += c.count;
  if (c.text !== before) fs.writeFileSync(file, c.text);
}
console.log(`wrap-long-lines: ${strings} string(s) split, ${comments} comment line(s) rewrapped`);
