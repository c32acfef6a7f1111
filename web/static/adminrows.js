// The variant rows of the admin's sale form (sizes, colours). Creating a
// sale, the rows go into its body. Editing one, each row is saved on its own
// through the variant routes, so an answer (a stock conflict, a label
// taken, a sale already open) lands on the row it is about.
import { $, el, api } from './api.js';

let seq = 0; // makes each row's input ids unique
let editing = null; // {item, opened} when editing a sale; null when creating
let soldOf = () => null; // variant id -> units sold, from the dashboard

// num and cents read what they can; anything else is sent as typed, so the
// API's validation names the field at fault.
export const num = (v) => (v.trim() === '' || Number.isNaN(Number(v)) ? v : Number(v));
export const cents = (v) => (Number.isNaN(Number(v)) ? v : Math.round(Number(v) * 100));

const rows = () => [...$('#vrows').children];
const say = (row, text, kind = '') => {
  const m = row.querySelector('.vrow-msg');
  m.textContent = text;
  m.className = `vrow-msg message ${kind}`;
};

export function init(sold) {
  soldOf = sold;
  $('#add-variant').addEventListener('click', () => addRow(null).querySelector('input').focus());
}

export function reset() {
  editing = null;
  $('#vrows').replaceChildren();
  update();
}

// load shows a sale's variants for editing; opened says whether the sale
// has opened, after which variants can change but not come or go.
export function load(item, opened) {
  editing = { item, opened };
  $('#vrows').replaceChildren();
  for (const v of item.variants) addRow(v);
  update();
}

// update shows the sale's own Stock field only where it is what is sent:
// a new sale without rows.
export function update() {
  const rs = rows();
  $('#stock-field').classList.toggle('hidden', editing !== null || rs.length > 0);
  const total = rs.reduce((n, r) => n + (Number(r.querySelector('[name="v-stock"]').value) || 0), 0);
  // Editing, the rows' stock is what is typed, not what is saved: no sum.
  const count = `${rs.length} variant${rs.length === 1 ? '' : 's'}`;
  $('#variant-sum').textContent = !rs.length ? '' : (editing ? `${count}.` : `${count}, ${total} units in all.`);
  const closed = editing !== null && editing.opened;
  $('#add-variant').disabled = closed;
  // A draw's limit is 1 for every variant: its rows have no limit column.
  const draw = !!document.querySelector('#sale-form.draw');
  const blanks = draw ? 'Blank price or image' : 'Blank price, limit or image';
  $('#variant-note').textContent = closed
    ? `This sale has opened: variants can no longer be added or removed; ${draw ? 'stock, price and image' : 'stock, price, limit and image'} can still change.`
    : (editing ? `Each row is saved on its own. ${blanks}: the sale's.`
      : (rs.length ? `Each row is a variant with its own stock. ${blanks}: the sale's.`
        : 'No rows: one item, sold from Stock. Add rows to sell sizes or colours, each with its own stock.'));
}

function values(row) {
  const get = (n) => row.querySelector(`[name="v-${n}"]`).value.trim();
  return { label: get('label'), stock: get('stock'), price: get('price'), limit: get('limit'), image: get('image') };
}

function addRow(v) {
  const n = ++seq;
  const sale = editing && editing.item;
  const input = (name, label, value, attrs = {}) => el('div', { class: `c-${name}` },
    el('label', { htmlFor: `v${n}-${name}`, textContent: label }),
    el('input', { id: `v${n}-${name}`, name: `v-${name}`, value: value ?? '', ...attrs }));
  // A variant's price and limit are shown only where they differ from the
  // sale's: blank means "the sale's", on screen as in the API.
  const price = v && v.price_cents !== sale.price_cents ? (v.price_cents / 100).toFixed(2) : '';
  const limit = v && v.per_user_limit !== sale.per_user_limit ? String(v.per_user_limit) : '';
  const row = el('div', { class: 'vrow', 'data-variant': v ? String(v.id) : '' },
    input('label', 'Label', v?.label, { maxLength: 40, placeholder: 'e.g. EU 42', autocomplete: 'off' }),
    input('stock', 'Stock', v?.stock_total, { inputMode: 'numeric' }),
    input('price', 'Price (USD)', price, { inputMode: 'decimal', placeholder: 'sale\'s' }),
    input('limit', 'Limit', limit, { inputMode: 'numeric', placeholder: 'sale\'s' }),
    input('image', 'Image URL', v?.image_url, { placeholder: 'https://… or /static/…', autocomplete: 'off' }),
    el('div', { class: 'c-actions' }),
    el('p', { class: 'vrow-msg message', role: 'status' }));
  row.dataset.orig = JSON.stringify(values(row));
  row.querySelector('[name="v-stock"]').addEventListener('input', update);
  $('#vrows').append(row);
  actions(row);
  update();
  return row;
}

function button(text, onClick, cls = '') {
  const b = el('button', { type: 'button', class: cls, textContent: text });
  b.addEventListener('click', onClick);
  return b;
}

// actions gives a row its buttons: a new sale's rows only come and go; a
// saved variant is saved or removed; a row added while editing is added.
function actions(row) {
  const box = row.querySelector('.c-actions');
  const dropRow = () => { row.remove(); update(); };
  const closed = editing !== null && editing.opened;
  if (!editing) box.replaceChildren(button('Remove', dropRow));
  else if (row.dataset.variant) {
    const rm = button('Remove', () => send(row, 'DELETE'));
    rm.disabled = closed;
    box.replaceChildren(button('Save', () => send(row, 'PATCH'), 'primary'), rm);
  } else {
    const add = button('Add', () => send(row, 'POST'), 'primary');
    add.disabled = closed;
    box.replaceChildren(add, button('Discard', dropRow));
  }
}

// changes is the PATCH body: only what the admin changed; a blank price or
// limit goes back to the sale's (null).
function changes(row) {
  const now = values(row);
  const was = JSON.parse(row.dataset.orig);
  const body = {};
  if (now.label !== was.label) body.label = now.label;
  if (now.stock !== was.stock) body.stock_total = num(now.stock);
  if (now.price !== was.price) body.price_cents = now.price === '' ? null : cents(now.price);
  if (now.limit !== was.limit) body.per_user_limit = now.limit === '' ? null : num(now.limit);
  if (now.image !== was.image) body.image_url = now.image;
  return body;
}

// send saves one row through the variant routes and shows the answer on it.
async function send(row, method) {
  const base = `/api/v1/admin/items/${editing.item.id}/variants`;
  const body = method === 'POST' ? variantBody(row) : (method === 'PATCH' ? changes(row) : undefined);
  if (method === 'PATCH' && Object.keys(body).length === 0) return say(row, 'Nothing to save.');
  row.querySelector('[name="v-stock"]').removeAttribute('aria-invalid');
  say(row, 'Saving…');
  try {
    const it = await api(method, method === 'POST' ? base : `${base}/${row.dataset.variant}`, body);
    const known = new Set(editing.item.variants.map((v) => v.id));
    editing.item = it;
    if (method === 'DELETE') {
      row.remove();
      update();
      return;
    }
    const v = method === 'POST' ? it.variants.find((x) => !known.has(x.id)) : it.variants.find((x) => String(x.id) === row.dataset.variant);
    const fresh = addRow(v); // re-read from the answer: what the server stored
    row.replaceWith(fresh);
    update();
    say(fresh, method === 'POST' ? 'Added.' : 'Saved.', 'ok');
  } catch (err) {
    if (err.code === 'stock_conflict') row.querySelector('[name="v-stock"]').setAttribute('aria-invalid', 'true');
    say(row, rowError(err, row, method), 'error');
  }
}

function rowError(err, row, method) {
  switch (err.code) {
    case 'stock_conflict': {
      const sold = soldOf(Number(row.dataset.variant));
      return `Stock conflict: stock cannot go below what is already sold${sold === null ? '' : ` (${sold} sold)`}. Nothing was changed.`;
    }
    case 'variant_count':
      return method === 'DELETE' ? 'A sale keeps at least one variant: this is its last.' : 'A sale has at most 64 variants.';
    case 'sale_opened':
      return 'The sale has opened: variants can no longer be added or removed.';
    default:
      return err.message;
  }
}

// variantBody is one row as the API takes a variant: blanks left out.
function variantBody(row) {
  const v = values(row);
  // A blank stock is left out, so the answer names the row that lacks it.
  const out = { label: v.label, stock_total: v.stock === '' ? undefined : num(v.stock) };
  if (v.price !== '') out.price_cents = cents(v.price);
  if (v.limit !== '') out.per_user_limit = num(v.limit);
  if (v.image !== '') out.image_url = v.image;
  return out;
}

// createBody is the rows of a new sale, or undefined when it has none.
export function createBody() {
  return rows().length ? rows().map(variantBody) : undefined;
}

// showError puts an answer about "variants[i]..." on row i, and one about
// the variants but no row under them all.
export function showError(field, message) {
  const m = /^variants\[(\d+)\](?:\.(\w+))?$/.exec(field || '');
  const row = m && rows()[Number(m[1])];
  if (!row) {
    if ((field || '').startsWith('variants')) $('.field-error[data-for="variants"]').textContent = message;
    return;
  }
  const input = { label: 'label', stock_total: 'stock', price_cents: 'price', per_user_limit: 'limit', image_url: 'image' }[m[2]];
  if (input) row.querySelector(`[name="v-${input}"]`).setAttribute('aria-invalid', 'true');
  say(row, message.replace(/^variants\[\d+\]\s*/, 'This row '), 'error'); // the row is already named by where it shows
}

export function clearErrors() {
  for (const row of rows()) {
    say(row, '');
    row.querySelectorAll('[aria-invalid]').forEach((i) => i.removeAttribute('aria-invalid'));
  }
}
