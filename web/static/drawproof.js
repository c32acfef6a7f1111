// The draw's proof on its sale page: the commitment (SHA-256 of the seed)
// from the opening of entries, the salt, and after the draw the seed, each
// shortened with the full value on hover and a Copy button, and a link to
// the page that explains and re-checks the draw.
import { $, el } from './api.js';

// shorten keeps the ends of a long hex value, which are enough to compare by eye.
export const shorten = (hex, head = 12, tail = 8) => (hex.length > head + tail + 4 ? `${hex.slice(0, head)}…${hex.slice(-tail)}` : hex);

function value(hex, pending) {
  if (!hex) return [el('span', { class: 'muted', textContent: pending })];
  const copy = el('button', { type: 'button', class: 'copy', textContent: 'Copy', 'aria-label': 'Copy the full value' });
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(hex);
      copy.textContent = 'Copied';
    } catch {
      copy.textContent = 'Select it';
    }
  });
  return [el('code', { class: 'hex', title: hex, textContent: shorten(hex), 'data-full': hex }), ' ', copy];
}

function row(name, label, ...content) {
  return [el('dt', { textContent: label }), el('dd', { 'data-proof': name }, ...content)];
}

// ProofBox repaints only when what it shows changed, so a shopper selecting
// or copying a value is not interrupted by the page's tick.
export class ProofBox {
  constructor(box, itemID) {
    this.box = box;
    this.list = $('dl', box);
    this.shown = '';
    const link = $('a', box);
    if (link) link.href = `/static/draw-proof.html?item=${encodeURIComponent(itemID)}`;
  }

  // paint shows the draw, and what this device kept of the shopper's
  // entry (drawkeep.js): the commitment shown when they entered, printed
  // in full so it can be written down, and the entry secret.
  paint(draw, entry, mine = null) {
    if (!draw) return;
    const id = entry && entry.entry_id;
    const key = [draw.seed_sha256, draw.salt, draw.seed, draw.entry_count, id, mine && mine.commitment].join();
    if (key === this.shown) return;
    this.shown = key;
    this.box.classList.remove('hidden');
    this.list.replaceChildren(
      ...row('commitment', 'Draw commitment: SHA-256 of the seed', ...value(draw.seed_sha256, 'published when entries open')),
      ...row('salt', 'Salt', ...value(draw.salt, 'published when entries open')),
      ...row('seed', 'Seed', ...value(draw.seed, 'revealed after the draw')),
      ...row('entries', 'Entries', String(draw.entry_count ?? 0)),
      ...(id ? row('entry', 'Your entry id', ...value(id, '')) : []),
      ...(mine && mine.entry_secret ? row('secret', 'Your entry secret (kept on this device)', ...value(mine.entry_secret, '')) : []),
      ...(mine && mine.commitment ? row('kept', 'Commitment when you entered', el('code', { class: 'hex full', textContent: mine.commitment })) : []),
    );
  }
}
