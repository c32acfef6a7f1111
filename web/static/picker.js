// The variant picker of a sale page: one button per variant (a size, a
// colour) showing its own live stock; a sold-out one is struck through and
// cannot be pressed. A sale with one variant shows no picker: that variant
// is always the one bought, and the page looks as it did before variants.
import { el } from './api.js';

export class Picker {
  // box holds the picker (hidden for a one-variant sale); onChange runs
  // whenever the choice may have changed.
  constructor(box, onChange) {
    this.box = box;
    this.list = box.querySelector('.variant-list');
    this.onChange = onChange;
    this.chosenID = null;
    this.shown = null; // the variant ids the buttons were built for
  }

  // sync follows the sale's variants, rebuilding the buttons only when
  // variants came or went (an admin may change them before the opening).
  sync(item) {
    const ids = item.variants.map((v) => v.id).join();
    if (ids === this.shown) return;
    this.shown = ids;
    const single = item.variants.length === 1;
    this.box.classList.toggle('hidden', single);
    if (single) this.chosenID = item.variants[0].id;
    else if (!item.variants.some((v) => v.id === this.chosenID)) this.chosenID = null;
    this.list.replaceChildren(...item.variants.map((v) => this.button(v)));
    this.onChange();
  }

  button(v) {
    const b = el('button', { type: 'button', class: 'variant', 'data-variant': String(v.id), 'aria-pressed': 'false' },
      el('span', { class: 'v-label', textContent: v.label }), el('span', { class: 'v-stock' }));
    b.addEventListener('click', () => this.choose(v.id));
    return b;
  }

  // chosen is the variant the shopper would buy, or null.
  chosen(item) {
    return item.variants.find((v) => v.id === this.chosenID) || null;
  }

  choose(id) {
    this.chosenID = id;
    this.onChange();
  }

  // paint shows each variant's stock; a sold-out one is disabled.
  paint(item) {
    for (const v of item.variants) {
      const b = this.list.querySelector(`[data-variant="${v.id}"]`);
      if (!b) continue;
      const out = v.stock_left <= 0;
      b.disabled = out;
      b.classList.toggle('sold-out', out);
      b.setAttribute('aria-pressed', String(v.id === this.chosenID));
      b.querySelector('.v-stock').textContent = out ? 'Sold out' : `${v.stock_left} left`;
      b.title = out ? `${v.label}: sold out` : '';
    }
  }
}
