// What this device keeps of a shopper's entry in a draw, so the draw can
// later be checked against values the server cannot change after the fact:
// the entry secret (chosen here, sent with the entry), the entry id, the
// salt, the variant entered for, and the commitment (seed_sha256) the sale page showed when the shopper
// entered. A published draw whose commitment differs was re-seeded.
const key = (itemID, user) => `seckill.draw.${itemID}.${user}`;

// kept is what this device kept of user's entry in draw itemID, or null.
export function kept(itemID, user) {
  try {
    const k = JSON.parse(localStorage.getItem(key(itemID, user)));
    return k && typeof k === 'object' ? k : null;
  } catch {
    return null; // storage off, or not ours: as if nothing was kept
  }
}

// keep records an entry as this device made it (draw.js checks the
// server's answer against it first: the secret is the one chosen here, the
// id computed here). The commitment is the
// first one this device saw for the draw (shown, the page's own read of it
// before entering): a later entry (a change of size) never replaces it.
export function keep(itemID, user, entry, shown) {
  const before = kept(itemID, user);
  const rec = {
    entry_secret: entry.entry_secret,
    entry_id: entry.entry_id,
    salt: entry.salt,
    variant_id: entry.variant_id,
    commitment: (before && before.commitment) || shown || entry.commitment,
    kept_at: new Date().toISOString(),
  };
  try {
    localStorage.setItem(key(itemID, user), JSON.stringify(rec));
  } catch { /* private mode: the check page will say nothing was kept */ }
  return rec;
}
