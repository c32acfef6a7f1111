// The list of sales: live stock, and a countdown to each opening that runs on
// the server's clock.
import { $, el, fetchItems, countdown, priceText, liveStatus, statusLabel, serverNow, header, signInForm, humanError } from './api.js';
import { entriesPhase, entriesBadge } from './drawtext.js';

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
    if (it.mode === 'draw') paintDraw(c, it, now);
  }
}

// paintDraw shows a draw's entries, until they close, instead of its
// opening: its "opening" is for the winners.
function paintDraw(c, it, now) {
  const phase = entriesPhase(it, now);
  if (phase === 'closed' || it.paused) return;
  const [cls, text] = entriesBadge[phase];
  const badge = c.querySelector('.badge');
  badge.className = `badge ${cls}`;
  badge.textContent = text;
  const open = phase === 'upcoming';
  c.querySelector('.when').textContent = open ? 'Entries open in' : 'Entries close in';
  c.querySelector('.countdown').textContent = countdown(Date.parse(open ? it.entries_open_at : it.entries_close_at) - now);
}

let pages = 1; // pages of the list shown; a refresh reads as many again
let next = null; // the cursor of the page after the last one shown

// readPages reads the list's first n pages, each from the cursor of the
// one before, so they share the first's split between open and ended
// sales and none is shown twice.
async function readPages(n) {
  const all = [];
  let cursor = null;
  for (let i = 0; i < n; i++) {
    const page = await fetchItems(cursor);
    all.push(...page.items);
    cursor = page.next;
    if (!cursor) break;
  }
  return { all, more: cursor };
}

function show(list, more) {
  items = list;
  next = more;
  const box = $('#sales');
  const shown = [...box.children].map((c) => c.dataset.item);
  const ids = items.map((it) => String(it.id));
  // A page added below keeps the cards above (and their pictures) as they are.
  if (shown.every((id, i) => id === ids[i])) box.append(...items.slice(shown.length).map(card));
  else box.replaceChildren(...items.map(card));
  $('#empty').classList.toggle('hidden', items.length > 0);
  $('#more').classList.toggle('hidden', !next);
  paint();
}

async function load() {
  try {
    const { all, more } = await readPages(pages);
    $('#list-error').textContent = '';
    show(all, more);
  } catch (err) {
    $('#list-error').textContent = humanError(err);
  }
}

// more shows the next page below the ones shown and moves the focus to its
// first sale, so a keyboard user carries on from where the button was.
async function more() {
  const btn = $('#more');
  btn.disabled = true;
  try {
    const page = await fetchItems(next);
    const known = new Set(items.map((it) => it.id));
    const added = page.items.filter((it) => !known.has(it.id));
    pages++;
    show([...items, ...added], page.next);
    if (added.length) document.querySelector(`[data-item="${added[0].id}"] h3 a`).focus();
  } catch (err) {
    $('#list-error').textContent = humanError(err);
  } finally {
    btn.disabled = false;
  }
}

// queue runs the list's reads one at a time: a refresh and a click on
// "More sales" must not paint over each other.
let queue = Promise.resolve();
// A failure is shown by f itself; the catch only keeps the queue going.
const queued = (f) => () => { queue = queue.then(f).catch(() => {}); return queue; };

async function main() {
  const who = await header();
  $('#signin').classList.toggle('hidden', !!who);
  signInForm($('#signin-form'), () => location.reload());
  $('#more').addEventListener('click', queued(more));
  await queued(load)();
  setInterval(paint, 250);
  setInterval(queued(load), 2000);
}

main();
