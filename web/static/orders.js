// The shopper's orders with their live status. A pending order (being
// saved) is followed over its event stream until it settles; the rest
// change only when the shopper pays or cancels here (the list is read
// again at once), or by the payment timeout or another tab, which a slow
// reload of the list shows. The page used to read the whole list every 2 s.
import { $, el, api, fetchItem, header, humanError } from './api.js';
import { followOrder } from './orderfeed.js';

// How often the whole list is read again, and how many pending orders are
// followed at once: each stream holds one of the browser's few connections
// to the shop (six over HTTP/1.1, shared by every tab), so a shopper with
// many pending orders gets the rest from the slow reload.
const RELOAD_MS = 30000;
const MAX_STREAMS = 2;

let names = {};
let demoPay = false; // whether the server takes the Pay button (SECKILL_DEMO_PAYMENTS); else the payment provider pays
let several = {}; // item id -> whether the sale sells more than one variant
const streams = new Map(); // order id -> stop, for the pending orders followed

async function load() {
  try {
    const { orders, demo_payments: demo } = await api('GET', '/api/v1/orders');
    demoPay = demo === true;
    await learnSales(orders);
    $('#orders').replaceChildren(...orders.map(row));
    $('#empty').classList.toggle('hidden', orders.length > 0);
    $('#error').textContent = '';
    followPending(orders);
  } catch (err) {
    $('#error').textContent = humanError(err);
  }
}

// learnSales reads the sales the orders are from, once each: the shop's
// list pages, and a shopper's old orders may be from sales long gone from
// its first page.
async function learnSales(orders) {
  const missing = [...new Set(orders.map((o) => o.item_id))].filter((id) => !(id in names));
  const sales = await Promise.all(missing.map((id) => fetchItem(id)));
  missing.forEach((id, i) => {
    names[id] = sales[i] ? sales[i].name : '';
    several[id] = sales[i] ? sales[i].variants.length > 1 : undefined;
  });
}

// followPending opens a stream for pending orders not yet followed, up to
// MAX_STREAMS, and closes those of orders no longer pending.
function followPending(orders) {
  const pending = orders.filter((o) => o.status === 'pending').map((o) => o.order_id);
  for (const [id, stop] of streams) {
    if (!pending.includes(id)) unfollow(id, stop);
  }
  for (const id of pending) {
    if (streams.size >= MAX_STREAMS) break;
    if (!streams.has(id)) streams.set(id, followOrder(id, { wanted: (o) => o.status === 'pending', onOrder: repaint, onGone: load }));
  }
}

function unfollow(id, stop) {
  stop();
  streams.delete(id);
}

// repaint replaces one order's row with what its stream says.
function repaint(o) {
  const tr = document.querySelector(`#orders tr[data-order="${CSS.escape(o.order_id)}"]`);
  if (tr) tr.replaceWith(row(o));
  if (o.status !== 'pending' && streams.has(o.order_id)) unfollow(o.order_id, () => {});
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
  const buttons = [];
  if (demoPay) {
    const pay = el('button', { type: 'button', class: 'primary', textContent: 'Pay' });
    pay.addEventListener('click', () => act(o, 'pay'));
    buttons.push(pay);
  }
  const cancel = el('button', { type: 'button', textContent: 'Cancel' });
  cancel.addEventListener('click', () => act(o, 'cancel'));
  buttons.push(cancel);
  return el('td', {}, el('div', { class: 'actions' }, ...buttons));
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
  setInterval(load, RELOAD_MS);
  // A tab coming back into view may have missed a payment timeout.
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') load(); });
}

main();
