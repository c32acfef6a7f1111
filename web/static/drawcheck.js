// An independent check of a published draw, in the browser: the algorithm
// exactly as the README states it, from the data GET /api/v1/items/{id}/draw
// publishes and what this device kept when the shopper entered, nothing else.
//
//   entry_id = hex(SHA-256(salt_bytes || entry_secret_bytes || user_id))
//   per variant, rank its entries by hex(SHA-256(seed_bytes || ":" || entry_id)),
//   ascending; the first stock_total win one unit each, the rest of the
//   ranking, in order, is that variant's waitlist.
//
// It is as strict as `seckill verify-draw` (internal/draw: wellformed.go,
// verify.go), rule for rule and in the same order: both run every file of
// internal/draw/testdata/vectors and must give each its verdict and problem.
//
// WebCrypto hashes only on secure pages (https, or this machine): elsewhere
// checkDraw throws, and `seckill verify-draw` does the same check.
import { wellFormed, isHex, Failed, Problem, shaped, timeOf } from './drawshape.js';
import { readDraw } from './drawjson.js';

const enc = new TextEncoder();
const hexBytes = (hex) => Uint8Array.from(hex.match(/../g) || [], (h) => parseInt(h, 16));
const hexOf = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');

async function sha256(...parts) {
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return hexOf(await crypto.subtle.digest('SHA-256', bytes));
}

export const canCheck = () => !!(globalThis.crypto && crypto.subtle);

// entryID is the id of userID's entry made with secretHex, under the
// published salt; '' when the salt or secret is not hex (the check then
// fails on the salt, or the entry is not found).
export async function entryID(saltHex, secretHex, userID) {
  const hex = /^([0-9a-fA-F]{2})*$/;
  if (typeof saltHex !== 'string' || !hex.test(saltHex) || !isHex(secretHex, 32)) return '';
  return sha256(hexBytes(saltHex), hexBytes(secretHex), enc.encode(userID));
}

// newSecret is a fresh entry secret: 32 random bytes, hex.
export const newSecret = () => hexOf(crypto.getRandomValues(new Uint8Array(32)));

// rank orders entries as the draw does: by their key, ascending.
export async function rank(seedHex, entries) {
  const seed = hexBytes(seedHex);
  const colon = enc.encode(':');
  const keyed = await Promise.all(entries.map(async (e) => ({ ...e, key: await sha256(seed, colon, enc.encode(e.entry_id)) })));
  return keyed.sort((a, b) => (a.key < b.key ? -1 : (a.key > b.key ? 1 : 0)));
}

// checkDraw checks a published draw, as the text served (read strictly,
// drawjson.js) or as parsed, against what the shopper kept from
// before the close: kept.commitment (the seed_sha256 seen then; absent when
// this device kept none), kept.salt (the salt seen at entry; absent for
// none), and their entry: kept.secret with kept.userID (the id computed
// under the salt), or kept.entryID (the id kept at entry, which binds the
// salt by itself); kept.variantID, the variant entered for. It returns {verdict: 'pass' | 'unconfirmed' | 'fail',
// problem, message, drawn, saltUnchecked, variants (each with its ranking),
// mine (their entry's variant_id, place, outcome: won, backfilled or
// waitlist)}.
export async function checkDraw(doc, kept = {}) {
  try {
    return await verify(typeof doc === 'string' ? readDraw(doc) : shaped(doc), kept);
  } catch (err) {
    if (!(err instanceof Failed)) throw err;
    return { verdict: 'fail', problem: err.problem, message: err.message, drawn: false, variants: [], mine: null };
  }
}

async function verify(d, kept) {
  wellFormed(d);
  const commitment = (kept.commitment || '').toLowerCase();
  if (commitment && commitment !== d.seed_sha256) {
    throw new Failed(Problem.commitment, `The draw now publishes the commitment ${d.seed_sha256}, but ${commitment} was shown when you entered: the seed was changed.`);
  }
  // A forger who knows every secret can re-salt a drawn draw until the
  // rankings suit them: only the salt kept at entry binds the entry ids.
  const salt = (kept.salt || '').toLowerCase();
  if (salt && salt !== d.salt) {
    throw new Failed(Problem.salt, `The draw now publishes the salt ${d.salt}, but ${salt} was shown when you entered: every entry id was changed.`);
  }
  const mine = kept.secret ? await entryID(d.salt, kept.secret, kept.userID ?? '') : (kept.entryID || '').toLowerCase();
  const saltUnchecked = !!kept.secret && !salt;
  const out = { verdict: commitment && !saltUnchecked ? 'pass' : 'unconfirmed', problem: '', message: '', drawn: d.phase === 'drawn',
    saltUnchecked, variants: [], mine: null };
  if (!out.drawn) {
    // No draw published once entries closed: the shopper's entry cannot be
    // checked, and that is no pass. An absent close is the zero time, as Go
    // decodes it: long past.
    const close = d.entries_close_at == null ? -Infinity : timeOf(d.entries_close_at);
    const closed = d.phase === 'drawing' || d.phase === 'ended' || (kept.now !== undefined && kept.now >= close);
    if (mine && closed) out.verdict = 'not_drawn';
    return out;
  }
  if ((await sha256(hexBytes(d.seed))) !== d.seed_sha256) {
    throw new Failed(Problem.seed, `SHA-256 of the seed is not the commitment ${d.seed_sha256}.`);
  }
  const entered = new Map(d.entries.map((e) => [e.entry_id, e.variant_id]));
  for (const w of d.winners) {
    if (entered.get(w.entry_id) !== w.variant_id) throw new Failed(Problem.winners, `Winner ${w.entry_id} is not among the entries of variant ${w.variant_id}.`);
  }
  out.variants = await Promise.all(d.variants.map(async (v) => {
    const ranking = await rank(d.seed, d.entries.filter((e) => e.variant_id === v.variant_id));
    return { ...v, ranking, due: Math.min(v.stock_total, ranking.length), passed: 0 };
  }));
  const byID = new Map(out.variants.map((v) => [v.variant_id, v]));
  const head = new Set(out.variants.flatMap((v) => v.ranking.slice(0, v.due).map((e) => e.entry_id)));
  if (head.size !== d.winners.length || !d.winners.every((w) => head.has(w.entry_id))) {
    throw new Failed(Problem.winners, `The published winners (${d.winners.length}) are not the first units of the rankings recomputed from the seed (${head.size}).`);
  }
  for (const b of d.backfilled) {
    const v = byID.get(b.variant_id);
    if (entered.get(b.entry_id) !== b.variant_id) throw new Failed(Problem.backfill, `Entry ${b.entry_id} was passed a unit of variant ${b.variant_id} but is not among its entries.`);
    const next = v.ranking[v.due + v.passed];
    if (!next || next.entry_id !== b.entry_id) throw new Failed(Problem.backfill, `Entry ${b.entry_id} was passed a unit out of its ranking's order.`);
    v.passed += 1;
  }
  if (mine) {
    out.mine = standing(out.variants, mine);
    if (!out.mine) throw new Failed(Problem.missing, `Your entry ${mine} is not among the ${d.entries.length} published entries.`);
    // An entry moved to a size with fewer entrants ahead of it can lose.
    if (kept.variantID && out.mine.variant_id !== kept.variantID) {
      const name = (id) => (d.variants.find((v) => v.variant_id === id) || { label: '' }).label || `variant ${id}`;
      throw new Failed(Problem.variant, `Your entry ${mine} is listed under ${name(out.mine.variant_id)}, but you entered for ${name(kept.variantID)}: it was moved.`);
    }
  }
  return out;
}

// standing is where an entry stands in the recomputed rankings; null if
// in none.
function standing(variants, id) {
  for (const v of variants) {
    const i = v.ranking.findIndex((e) => e.entry_id === id);
    if (i < 0) continue;
    const outcome = i < v.stock_total ? 'won' : (i < v.stock_total + v.passed ? 'backfilled' : 'waitlist');
    return { entry_id: id, variant_id: v.variant_id, place: i + 1, of: v.ranking.length, units: v.stock_total, label: v.label, outcome };
  }
  return null;
}
