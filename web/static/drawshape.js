// The shape of a published draw, checked before anything is computed from
// it, so that a forged document fails with a reason rather than slipping
// past the check or crashing it. The same rules, in the same order, as
// internal/draw/wellformed.go (and what Go's JSON decoding refuses: a
// value of the wrong type; drawjson.js refuses the rest of what
// internal/draw/strict.go does).

// Problem names what is wrong with a draw, as draw.Problem does.
export const Problem = {
  malformed: 'malformed',
  nothing: 'nothing_published',
  commitment: 'commitment_mismatch',
  seed: 'seed_mismatch',
  winners: 'winners_wrong',
  backfill: 'backfill_wrong',
  missing: 'entry_missing',
  salt: 'salt_mismatch',
  variant: 'variant_mismatch',
};

// Failed is a draw that does not hold, and why.
export class Failed extends Error {
  constructor(problem, message) {
    super(message);
    this.problem = problem;
  }
}

const PHASES = ['entries_open', 'drawing', 'drawn', 'ended'];
const TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)([.,]\d+)?(Z|([+-])(\d\d):(\d\d))$/;

function daysIn(year, month) {
  const t = new Date(0);
  t.setUTCFullYear(year, month, 0);
  return t.getUTCDate();
}

// timeOf is s as Go's time.Time reads it from JSON (RFC 3339, with its
// ranges: an offset of up to 24 hours and 60 minutes passes), in ms since
// the epoch; NaN for what Go refuses.
export function timeOf(s) {
  const m = typeof s === 'string' && TIME.exec(s);
  if (!m) return NaN;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number);
  const [oh, om] = [Number(m[10] || 0), Number(m[11] || 0)];
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59 || oh > 24 || om > 60) return NaN;
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, sec, m[7] ? Math.floor(Number(`0.${m[7].slice(1)}`) * 1000) : 0);
  return t.getTime() - (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60000;
}

const malformed = (message) => new Failed(Problem.malformed, message);
const absent = (v) => v === undefined || v === null;
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

// isHex says whether s is n bytes in lowercase hex, the only spelling the
// server publishes.
export const isHex = (s, n) => typeof s === 'string' && s.length === 2 * n && /^[0-9a-f]*$/.test(s);

function int(v, name) {
  if (!Number.isSafeInteger(v)) throw malformed(`${name} must be a whole number, got ${JSON.stringify(v)}.`);
  return v;
}

function hexField(d, name, n) {
  if (absent(d[name])) throw malformed(`${name} is missing.`);
  if (!isHex(d[name], n)) throw malformed(`${name} must be ${n} bytes in lowercase hex, got ${JSON.stringify(d[name])}.`);
}

// types refuses what Go's decoder refuses: fields of the wrong type.
function types(d) {
  if (!isObject(d)) throw malformed('The document is not a draw (a JSON object).');
  if (!absent(d.item_id)) int(d.item_id, 'item_id');
  if (!absent(d.entry_count)) int(d.entry_count, 'entry_count');
  for (const t of ['entries_open_at', 'entries_close_at', 'drawn_at']) {
    if (!absent(d[t]) && Number.isNaN(timeOf(d[t]))) throw malformed(`${t} is not a time.`);
  }
  for (const f of ['phase', 'seed_sha256', 'salt', 'seed']) {
    if (!absent(d[f]) && typeof d[f] !== 'string') throw malformed(`${f} must be a string.`);
  }
  if (!absent(d.variants) && !Array.isArray(d.variants)) throw malformed('variants must be a list.');
  for (const v of d.variants || []) {
    if (v !== null && !isObject(v)) throw malformed('A variant is not an object.');
    int(v?.variant_id ?? 0, 'variant_id');
    int(v?.stock_total ?? 0, 'stock_total');
    if (!absent(v?.label) && typeof v.label !== 'string') throw malformed('A variant label must be a string.');
  }
  for (const l of ['entries', 'winners', 'backfilled']) {
    if (absent(d[l])) continue;
    if (!Array.isArray(d[l])) throw malformed(`${l} must be a list.`);
    for (const t of d[l]) {
      if (t !== null && !isObject(t)) throw malformed(`${l}: an entry is not an object.`);
      if (!absent(t?.entry_id) && typeof t.entry_id !== 'string') throw malformed(`${l}: an entry id must be a string.`);
      int(t?.variant_id ?? 0, `${l}: variant_id`);
    }
  }
}

// shaped is a document of the right types as Go decodes it into
// draw.Proof: a null or absent number is 0, a null or absent string "",
// a null element of a list the zero variant or entry; null optional
// fields and lists are absent. The checks then read one draw, as Go does.
export function shaped(d) {
  types(d);
  const ticket = (t) => ({ entry_id: t?.entry_id ?? '', variant_id: t?.variant_id ?? 0 });
  const out = { ...d, item_id: d.item_id ?? 0, phase: d.phase ?? '', entry_count: d.entry_count ?? 0,
    variants: (d.variants ?? []).map((v) => ({ variant_id: v?.variant_id ?? 0, label: v?.label ?? '', stock_total: v?.stock_total ?? 0 })) };
  for (const f of ['entries_open_at', 'entries_close_at', 'drawn_at', 'seed_sha256', 'salt', 'seed', 'entries', 'winners', 'backfilled']) {
    if (d[f] === null) delete out[f];
  }
  for (const l of ['entries', 'winners', 'backfilled']) {
    if (!absent(d[l])) out[l] = d[l].map(ticket);
  }
  return out;
}

// wellFormed checks a draw's shape and returns its variants' units.
export function wellFormed(d) {
  types(d);
  if (d.phase === 'upcoming') throw new Failed(Problem.nothing, 'Entries are not open yet: nothing is published.');
  if (!PHASES.includes(d.phase)) throw malformed(`phase ${JSON.stringify(d.phase ?? '')} is none of upcoming, entries_open, drawing, drawn, ended.`);
  hexField(d, 'seed_sha256', 32);
  hexField(d, 'salt', 16);
  const units = new Map();
  for (const v of d.variants || []) {
    const id = v.variant_id ?? 0;
    if (units.has(id)) throw malformed(`Variant ${id} is listed twice.`);
    if ((v.stock_total ?? 0) < 0) throw malformed(`Variant ${id} has a negative stock_total (${v.stock_total}).`);
    units.set(id, v.stock_total ?? 0);
  }
  if (d.phase !== 'drawn') {
    if (['seed', 'entries', 'winners', 'backfilled'].some((f) => !absent(d[f]))) {
      throw malformed(`A draw in phase ${d.phase} publishes a seed, entries, winners or backfilled.`);
    }
    return units;
  }
  hexField(d, 'seed', 32);
  for (const l of ['entries', 'winners', 'backfilled']) {
    if (absent(d[l])) throw malformed(`A drawn draw must publish ${l} (a list, even empty).`);
    tickets(l, d[l], units);
  }
  if ((d.entry_count ?? 0) !== d.entries.length) throw malformed(`entry_count is ${d.entry_count ?? 0} but ${d.entries.length} entries are listed.`);
  return units;
}

function tickets(list, ts, units) {
  const seen = new Set();
  for (const t of ts) {
    const id = t.entry_id ?? '';
    if (!isHex(id, 32)) throw malformed(`${list}: entry id ${JSON.stringify(id)} is not 64 lowercase hex digits.`);
    if (!units.has(t.variant_id ?? 0)) throw malformed(`${list}: entry ${id} is under variant ${t.variant_id ?? 0}, which the draw does not list.`);
    if (seen.has(id)) throw malformed(`${list}: entry ${id} is listed twice.`);
    seen.add(id);
  }
}
