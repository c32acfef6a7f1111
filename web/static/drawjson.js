// Reading a published draw from its bytes, as strictly as
// internal/draw/strict.go does, so that one document cannot verify as two
// different draws: JSON.parse keeps the last of duplicate keys where Go's
// decoder merges them, Go matches keys case-insensitively where
// JSON.parse matches exactly, and JSON.parse reads 1.0 as an integer where
// Go refuses it. A document with any of these is malformed in both.
import { Failed, Problem, shaped } from './drawshape.js';

// The keys of a published draw, its variants and entries.
const KNOWN = ['item_id', 'phase', 'entries_open_at', 'entries_close_at', 'drawn_at', 'seed_sha256', 'salt', 'seed',
  'entry_count', 'variants', 'entries', 'winners', 'backfilled', 'variant_id', 'label', 'stock_total', 'entry_id'];
const MAX_DEPTH = 32; // a draw's is 3
const MAX_INTEGER = 2 ** 53 - 1;
const NUMBER_OR_WORD = /-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null/y;

const malformed = (message) => new Failed(Problem.malformed, message);

// fold is key as Go's strings.EqualFold compares it with an ASCII key:
// ASCII letters by case, and the long s and the Kelvin sign, which fold to
// s and k; any other character matches no ASCII key.
const fold = (key) => [...key].map((c) => {
  if (c === '\u017f') return 's';
  if (c === '\u212a') return 'k';
  return c < '\x80' ? c.toLowerCase() : c;
}).join('');

// readDraw reads the document text as served and returns it shaped as Go
// decodes it (drawshape.js); it throws Failed (malformed) for anything
// strict.go refuses.
export function readDraw(text) {
  let d;
  try {
    d = JSON.parse(text);
  } catch (err) {
    throw malformed(`The document is not one JSON document: ${err.message}`);
  }
  scan(text);
  return shaped(d);
}

// scan walks text, which JSON.parse accepted, refusing repeated keys,
// case-variant keys and numbers that are not integers spelled as such.
function scan(text) {
  let i = 0;
  const space = () => {
    while (' \t\n\r'.includes(text[i]) && i < text.length) i += 1;
  };
  // string skips a string, and returns its value for a key (a draw's
  // thousands of entry ids need not be decoded twice).
  const string = (key = false) => {
    const start = i;
    for (i += 1; text[i] !== '"'; i += text[i] === '\\' ? 2 : 1);
    i += 1;
    return key ? JSON.parse(text.slice(start, i)) : undefined;
  };
  const members = (close, depth, member) => {
    i += 1;
    space();
    if (text[i] === close) {
      i += 1;
      return;
    }
    for (;;) {
      member(depth);
      space();
      const c = text[i];
      i += 1;
      if (c === close) return;
    }
  };
  const value = (depth) => {
    if (depth > MAX_DEPTH) throw malformed(`The document is nested deeper than ${MAX_DEPTH}.`);
    space();
    if (text[i] === '{') {
      const seen = new Set();
      return members('}', depth, () => {
        space();
        const key = string(true);
        if (seen.has(key)) throw malformed(`The key ${JSON.stringify(key)} is repeated in an object.`);
        seen.add(key);
        const name = fold(key);
        if (name !== key && KNOWN.includes(name)) throw malformed(`The key ${JSON.stringify(key)} is not "${name}": keys are spelled exactly.`);
        space();
        i += 1; // the colon
        value(depth + 1);
      });
    }
    if (text[i] === '[') return members(']', depth, () => value(depth + 1));
    if (text[i] === '"') return string();
    NUMBER_OR_WORD.lastIndex = i;
    const t = NUMBER_OR_WORD.exec(text)[0];
    i += t.length;
    if (/^-?\d/.test(t) && !(/^-?(0|[1-9]\d*)$/.test(t) && Math.abs(Number(t)) <= MAX_INTEGER)) {
      throw malformed(`The number ${t} is not an integer of at most 2^53-1.`);
    }
    return undefined;
  };
  value(0);
}
