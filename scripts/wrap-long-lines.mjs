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

/**
 * Where to cut `src` (offsets at which a closing quote, ` + ` and an opening quote may go) so that no
 * piece runs past `max` characters from its line's start; a line of a multi-line template restarts the
 * count. `firstColumn` is the column the literal starts at (pieces after a cut start near column 10).
 */
function cutPoints(src, allowed, max, firstColumn) {
  const cuts = [];
  let lineStart = -firstColumn;
  let last = -1;
  for (let i = 0; i < src.length; i++) {
    if (src[i] === '\n') {
      lineStart = i + 1;
      last = -1;
      continue;
    }
    if (allowed.has(i) && i - lineStart > 20) {
      if (i - lineStart <= max || last < 0) last = i;
    }
    if (i - lineStart >= max && last > lineStart + 10) {
      cuts.push(last);
      lineStart = last - 10;
      last = -1;
    }
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
      const multiLine = src.includes('\n');
      // Offsets where the literal may be cut: after a space of its text (not an escaped one), and in a
      // template at the edges of each ${...} (after its closing brace, before its opening dollar).
      const allowed = new Set();
      const spacesIn = (from, to) => {
        for (let i = from; i < to; i++) {
          if (src[i - 1] === ' ' && src[i - 2] !== '\\') allowed.add(i);
          // after an escaped newline or tab (\n, \t), not after an escaped backslash followed by n or t
          if ((src[i - 1] === 'n' || src[i - 1] === 't') && src[i - 2] === '\\' && src[i - 3] !== '\\') allowed.add(i);
        }
      };
      if (ts.isTemplateExpression(node)) {
        const parts = [node.head, ...node.templateSpans.map((s) => s.literal)];
        for (const part of parts) {
          const ps = part.getStart(sf) - start;
          const pe = part.end - start;
          const isTail = src[pe - 1] === '`' && pe === src.length;
          spacesIn(ps + 2, isTail ? pe - 1 : pe - 2);
          if (part !== node.head && ps + 1 < pe - (isTail ? 1 : 2)) allowed.add(ps + 1);
          if (!isTail && pe - 2 > ps + 1) allowed.add(pe - 2);
        }
      } else spacesIn(2, src.length - 1);
      const column = sf.getLineAndCharacterOfPosition(start).character;
      const cuts = multiLine ? cutPoints(src, allowed, width - 4, column) : cutPoints(src, allowed, PIECE, 0);
      if (cuts.length === 0) {
        ts.forEachChild(node, visit); // a template whose own text cannot be cut: its nested literals may be
        return;
      }
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
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral && onLongLine(node)) {
      // `/source/flags` -> new RegExp(String.raw`piece` + String.raw`piece`, 'flags'): the same source text.
      const start = node.getStart(sf);
      const literal = text.slice(start, node.end);
      const close = literal.lastIndexOf('/');
      const source = literal.slice(1, close);
      const flags = literal.slice(close + 1);
      if (!source.includes('`') && !source.includes('${')) {
        const allowed = new Set();
        for (let i = 1; i < source.length; i++) if (source[i - 1] !== '\\' && source[i] !== '\\') allowed.add(i);
        const spaces = new Set([...allowed].filter((i) => source[i - 1] === ' '));
        const cuts = cutPoints(source, spaces.size > 0 ? spaces : allowed, PIECE, 0);
        const fallback = cuts.length > 0 ? cuts : cutPoints(source, allowed, PIECE, 0);
        if (fallback.length > 0) {
          const pieces = [];
          let prev = 0;
          for (const c of fallback) {
            pieces.push(source.slice(prev, c));
            prev = c;
          }
          pieces.push(source.slice(prev));
          const joined = pieces.map((p) => 'String.raw`' + p + '`').join(' + ');
          edits.push({ start, end: node.end, text: `new RegExp(${joined}${flags ? `, '${flags}'` : ''})` });
          return;
        }
      }
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
