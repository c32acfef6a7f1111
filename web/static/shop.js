// The list of sales: live stock, and a countdown to each opening that runs on
// the server's clock.
import { $, el, fetchItems, countdown, priceText, liveStatus, statusLabel, serverNow, header, signInForm, humanError } from './api.js';

let items = [];

function card(it) {
  // The picture repeats the name beside it: hidden from screen readers and
  // out of the tab order, so the card has one link to follow.
  const thumb = el('a', { class: 'thumb hidden', href: `/sale/${it.id}`, tabIndex: -1, 'aria-hidden': 'true' },
    el('img', { alt: '', loading: 'lazy', decoding: 'async' }));
  thumb.querySelector('img').addEventListener('error', () => thumb.classList.add('hidden'));
  return el('article', { class: 'card sale-card', 'data-item': String(it.id) }, thumb,
    el('h3', {}, el('a', { href: `/sale/${it.id}`, textContent: it.name })),
    el('div', { class: 'row' }, el('span', { class: 'price' }), el('span', { class: 'badge' })),
    el('div', { class: 'row' }, el('span', { class: 'muted', textContent: 'Left' }),
      el('span', { class: 'stock' })),
    el('div', { class: 'row' }, el('span', { class: 'when muted' }), el('span', { class: 'countdown' })));
}

// showImage sets a card's picture as a property (never markup) and only
// when it changed, so a repaint does not reload it.
function showImage(c, url) {
  const thumb = c.querySelector('.thumb');
  const img = thumb.querySelector('img');
  if (img.getAttribute('src') !== url && url) img.src = url;
  thumb.classList.toggle('hidden', !url);
}

// paint refreshes every card from the latest data and the synced clock.
function paint() {
  const now = serverNow();
  for (const it of items) {
    const c = document.querySelector(`[data-item="${it.id}"]`);
    if (!c) continue;
    const st = liveStatus(it, now);
    showImage(c, it.image_url);
    c.querySelector('.price').textContent = priceText(it);
    const badge = c.querySelector('.badge');
    badge.className = `badge ${st}`;
    badge.textContent = statusLabel[st];
    c.querySelector('.stock').textContent = `${it.stock_left} / ${it.stock_total}`;
    const upcoming = st === 'upcoming';
    c.querySelector('.when').textContent = upcoming ? 'Opens in' : (st === 'ended' ? 'Ended' : 'Ends in');
    c.querySelector('.countdown').textContent = st === 'ended' ? ''
      : countdown(Date.parse(upcoming ? it.starts_at : it.ends_at) - now);
  }
}

async function load() {
  try {
    items = await fetchItems();
    $('#list-error').textContent = '';
  } catch (err) {
    $('#list-error').textContent = humanError(err);
    return;
  }
  const box = $('#sales');
  const shown = [...box.children].map((c) => c.dataset.item).join();
  if (shown !== items.map((it) => String(it.id)).join()) box.replaceChildren(...items.map(card));
  $('#empty').classList.toggle('hidden', items.length > 0);
  paint();
}

async function main() {
  const who = await header();
  $('#signin').classList.toggle('hidden', !!who);
  signInForm($('#signin-form'), () => location.reload());
  await load();
  setInterval(paint, 250);
  setInterval(load, 2000);
}

main();
