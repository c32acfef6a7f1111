// An independent check of a published draw, in the browser: the algorithm
// exactly as the README states it, from the data GET /api/v1/items/{id}/draw
// publishes and nothing else.
//
//   entry_id = hex(SHA-256(salt_bytes || user_id))
//   per variant, rank its entries by hex(SHA-256(seed_bytes || ":" || entry_id)),
//   ascending; the first stock_total win one unit each, the rest of the
//   ranking, in order, is that variant's waitlist.
//
// WebCrypto hashes only on secure pages (https, or this machine): elsewhere
// checkDraw throws, and `seckill verify-draw` does the same check.

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

// entryID is the id the server must have given userID's entry.
export const entryID = (saltHex, userID) => sha256(hexBytes(saltHex), enc.encode(userID));

// rank orders entries as the draw does: by their key, ascending.
export async function rank(seedHex, entries) {
  const seed = hexBytes(seedHex);
  const colon = enc.encode(':');
  const keyed = await Promise.all(entries.map(async (e) => ({ ...e, key: await sha256(seed, colon, enc.encode(e.entry_id)) })));
  return keyed.sort((a, b) => (a.key < b.key ? -1 : (a.key > b.key ? 1 : 0)));
}

// checkDraw recomputes a drawn draw: whether the seed is the one committed
// to, and per variant its ranking and whether the published winners are
// exactly its head, and the units passed on since (backfilled) the next
// places of the ranking in order: the rule seckill verify-draw applies.
export async function checkDraw(d) {
  const seedMatches = (await sha256(hexBytes(d.seed))) === d.seed_sha256;
  const variants = await Promise.all(d.variants.map(async (v) => {
    const ranking = await rank(d.seed, d.entries.filter((e) => e.variant_id === v.variant_id));
    const won = new Set(d.winners.filter((w) => w.variant_id === v.variant_id).map((w) => w.entry_id));
    const due = Math.min(v.stock_total, ranking.length);
    const passed = (d.backfilled || []).filter((b) => b.variant_id === v.variant_id).map((b) => b.entry_id);
    const ok = won.size === due && ranking.slice(0, due).every((e) => won.has(e.entry_id)) &&
      passed.every((id, i) => ranking[due + i] && ranking[due + i].entry_id === id);
    return { ...v, ranking, winners: won.size, due, passed: passed.length, ok };
  }));
  const listed = new Set(d.entries.map((e) => e.entry_id));
  const strangers = d.winners.filter((w) => !listed.has(w.entry_id)).length; // winners who never entered
  return { seedMatches, variants, strangers, ok: seedMatches && strangers === 0 && variants.every((v) => v.ok) };
}
