// The shopper's orders with their live status.
import { $, el, api, fetchItems, header, humanError } from './api.js';

let names = {};
let several = {}; // item id -> whether the sale sells more than one variant

async function load() {
  try {
    const [{ orders }, items] = await Promise.all([api('GET', '/api/v1/orders'), fetchItems()]);
    names = Object.fromEntries(items.map((it) => [it.id, it.name]));
    several = Object.fromEntries(items.map((it) => [it.id, it.variants.length > 1]));
    $('#orders').replaceChildren(...orders.map(row));
    $('#empty').classList.toggle('hidden', orders.length > 0);
    $('#error').textContent = '';
  } catch (err) {
    $('#error').textContent = humanError(err);
  }
}

// act pays or cancels an order and reloads the list.
async function act(o, what) {
  try {
    await api('POST', `/api/v1/orders/${o.order_id}/${what}`);
    $('#error').textContent = '';
  } catch (err) {
    $('#error').textContent = err.code === 'order_pending'
      ? 'Your order is still being saved. Try again in a moment.' : humanError(err);
  }
  load();
}

function actions(o) {
  if (o.status !== 'confirmed' && o.status !== 'pending') return el('td');
  const pay = el('button', { type: 'button', class: 'primary', textContent: 'Pay' });
  pay.addEventListener('click', () => act(o, 'pay'));
  const cancel = el('button', { type: 'button', textContent: 'Cancel' });
  cancel.addEventListener('click', () => act(o, 'cancel'));
  return el('td', {}, el('div', { class: 'actions' }, pay, cancel));
}

// variantNote names the variant bought, unless the sale has only one (its
// "Default" says nothing); a sale no longer listed still shows its label.
function variantNote(o) {
  const show = several[o.item_id] ?? (o.variant_label && o.variant_label !== 'Default');
  return show ? [' ', el('span', { class: 'variant-label', textContent: o.variant_label })] : [];
}

function row(o) {
  return el('tr', { 'data-order': o.order_id },
    el('td', {}, el('a', { href: `/sale/${o.item_id}`, textContent: names[o.item_id] || `Sale ${o.item_id}` }), ...variantNote(o)),
    el('td', { class: 'num', textContent: String(o.quantity) }),
    el('td', {}, el('span', { class: `badge ${o.status}`, textContent: o.status })),
    el('td', { textContent: new Date(o.created_at).toLocaleString() }),
    el('td', {}, el('code', { textContent: o.order_id })),
    actions(o));
}

async function main() {
  if (!(await header())) {
    $('#signin-hint').classList.remove('hidden');
    return;
  }
  await load();
  setInterval(load, 2000);
}

main();
