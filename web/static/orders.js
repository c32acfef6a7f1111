// The shopper's orders with their live status.
import { $, el, api, fetchItems, header, humanError } from './api.js';

let names = {};

async function load() {
  try {
    const [{ orders }, items] = await Promise.all([api('GET', '/api/v1/orders'), fetchItems()]);
    names = Object.fromEntries(items.map((it) => [it.id, it.name]));
    $('#orders').replaceChildren(...orders.map(row));
    $('#empty').classList.toggle('hidden', orders.length > 0);
    $('#error').textContent = '';
  } catch (err) {
    $('#error').textContent = humanError(err);
  }
}

function row(o) {
  return el('tr', { 'data-order': o.order_id },
    el('td', {}, el('a', { href: `/sale/${o.item_id}`, textContent: names[o.item_id] || `Sale ${o.item_id}` })),
    el('td', { class: 'num', textContent: String(o.quantity) }),
    el('td', {}, el('span', { class: `badge ${o.status}`, textContent: o.status })),
    el('td', { textContent: new Date(o.created_at).toLocaleString() }),
    el('td', {}, el('code', { textContent: o.order_id })));
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
