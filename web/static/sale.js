// One sale: the Buy button enables itself at the opening second of the
// server's clock, a double click never sends two orders, and the order's
// state follows pending -> confirmed without a reload. A sale with a waiting
// room turns Buy on only once the room has admitted the shopper. A sale of
// several variants (sizes, colours) asks the shopper to pick one. A draw
// sale hands the page over to draw.js once the sale is read.
import { $, el, api, fetchItem, countdown, price, priceText, liveStatus, statusLabel, serverNow, header, signInForm, humanError, pausedMessage,
  syncWithServer, keepClockSynced, newKey } from './api.js';
import { followOrder } from './orderfeed.js';
import { waitingRoom, describe, waitText } from './room.js';
import { chanceWords } from './chance.js';
import { Picker } from './picker.js';
import { Draw } from './draw.js';

const itemID = location.pathname.split('/').pop();
let item = null;
let user = null;
let buying = false;
let intentKey = null; // one key per purchase intent; a retry reuses it
let messageLocked = false; // a purchase answer stays until the next attempt
let roomView = null; // the shopper's standing in the sale's waiting room, if it has one
let draw = null; // a draw sale's part of the page (draw.js)
const picker = new Picker($('#variants'), onChoice);
$('#image').addEventListener('error', () => $('#figure').classList.add('hidden')); // a broken picture takes no room

const hasRoom = () => item && item.room_rate > 0;
const admitted = () => !hasRoom() || (roomView && roomView.state === 'admitted');

function say(text, kind = '') {
  const m = $('#message');
  m.textContent = text;
  m.className = `message ${kind}`;
}

function renderOnce() {
  document.title = `seckill · ${item.name}`;
  $('#name').textContent = item.name;
  $('#description').textContent = item.description;
  picker.sync(item);
  onChoice();
  $('#sale').classList.remove('hidden');
}

const several = () => item.variants.length > 1;

// onChoice shows what the chosen variant changes: price, picture and how
// many one shopper may buy.
function onChoice() {
  if (!item) return;
  const v = picker.chosen(item);
  $('#price').textContent = v ? price(v.price_cents) : priceText(item);
  showImage(v && v.image_url ? v.image_url : item.image_url, v && several() ? `${item.name}, ${v.label}` : item.name);
  setQuantities(v ? v.per_user_limit : item.per_user_limit);
  tick();
}

// showImage sets the picture as a property, never as markup, and only
// when it changed, so a repaint does not reload it.
function showImage(url, alt) {
  const img = $('#image');
  if (url && img.getAttribute('src') !== url) {
    $('#figure').classList.remove('hidden');
    img.src = url;
  }
  img.alt = alt;
  if (!url) $('#figure').classList.add('hidden');
}

// setQuantities offers 1 to max, keeping the shopper's pick when it fits.
function setQuantities(max) {
  const q = $('#quantity');
  if (q.options.length === max) return;
  const keep = Math.min(Number(q.value) || 1, max);
  q.replaceChildren(...Array.from({ length: max }, (_, i) => new Option(String(i + 1), String(i + 1))));
  q.value = String(keep);
}

// tick repaints from the synced clock; it is what enables Buy on time.
function tick() {
  if (!item) return;
  const now = serverNow();
  const st = liveStatus(item, now);
  const badge = $('#status');
  badge.className = `badge ${st}`;
  badge.textContent = statusLabel[st];
  const v = picker.chosen(item);
  const shown = v && several() ? v : item;
  $('#stock-label').textContent = shown === item ? 'Left' : `Left in ${v.label}`;
  $('#stock').textContent = `${shown.stock_left} / ${shown.stock_total}`;
  picker.paint(item);
  if (draw) {
    draw.paint(now);
    say(item.paused && st !== 'ended' ? pausedMessage : '', 'error');
    return;
  }
  const upcoming = st === 'upcoming';
  $('#when').textContent = upcoming ? 'Opens in' : (st === 'ended' ? 'Ended' : 'Ends in');
  $('#countdown').textContent = st === 'ended' ? '00:00:00' : countdown(Date.parse(upcoming ? item.starts_at : item.ends_at) - now);
  $('#buy').disabled = !user || buying || st !== 'live' || !admitted() || !v || v.stock_left <= 0;
  $('#signin').classList.toggle('hidden', !!user || st === 'sold_out' || st === 'ended');
  $('#buy').dataset.state = st;
  if (!messageLocked) {
    if (st === 'sold_out') say(roomView && roomView.state === 'sold_out' ? '' : 'Sold out. Every unit has been claimed.', 'error'); // the room says it
    else if (st === 'ended') say('This sale has ended.', 'error');
    else if (st === 'paused') say(pausedMessage, 'error');
    else if (st === 'upcoming') say(hasRoom() ? 'The Buy button turns on when the waiting room lets you in.' : 'The Buy button turns on when the sale opens.');
    else if (!v) say('Choose a size or style, then press Buy.');
    else if (v.stock_left <= 0) say(`${v.label} is sold out. Choose another.`, 'error');
    else say('');
  }
}

// refresh reads the sale again: GET /api/v1/items/{id} through the
// browser's cache, so an unchanged sale costs a 304. A sale that vanishes
// later keeps its last numbers shown; only the first read shows "missing".
// After a purchase (revalidate) the page asks the server even within the
// second the cached copy is fresh, so the shopper's own unit leaves the stock
// shown at once.
async function refresh(revalidate = false) {
  try {
    const fresh = await fetchItem(itemID, revalidate);
    if (!fresh) return;
    item = fresh;
    picker.sync(item);
  } catch { /* keep the last numbers; the next refresh retries */ }
}

async function purchase() {
  if (buying) return; // a double click lands here
  buying = true;
  messageLocked = true;
  tick();
  const btn = $('#buy');
  btn.textContent = 'Buying…';
  intentKey = intentKey || newKey();
  const quantity = Number($('#quantity').value);
  const v = picker.chosen(item);
  try {
    const res = await buyWithRetry(v.id, quantity);
    intentKey = null;
    say(several() ? `Done! You bought ${res.quantity} × ${v.label}.` : `Done! You bought ${res.quantity}.`, 'ok');
    follow(res.order_id, res.status, v.label);
  } catch (err) {
    if (!(err.status >= 500 || err.status === 429 || !err.status)) intentKey = null; // final answer
    say(humanError(err), 'error');
    if (err.code === 'sold_out') soldOut(v, err.availableVariants, quantity);
    if (err.code === 'already_purchased' && err.orderId) follow(err.orderId, 'pending');
  } finally {
    buying = false;
    btn.textContent = 'Buy';
    refresh(true);
    tick();
  }
}

let purchaseToken = null; // {token, expires}: issued by the server from the opening second

async function freshToken() {
  if (hasRoom()) return roomView ? roomView.token : ''; // the room's admission is the token
  if (!purchaseToken || purchaseToken.expires - serverNow() < 5000) {
    const t = await api('GET', `/api/v1/items/${itemID}/purchase-token`);
    purchaseToken = { token: t.token, expires: Date.parse(t.expires_at) };
  }
  return purchaseToken.token;
}

// soldOut marks the variant the shopper tried as gone and, when others are
// left (available lists them), moves the choice to the first of those and
// says so, so the next press of Buy is a choice the shopper saw. A variant
// that is still listed has units left, fewer than the quantity asked: it
// stays chosen, and the shopper is asked for fewer.
function soldOut(tried, available, quantity) {
  const short = !!available && available.includes(tried.id);
  // item may be a newer copy than the one tried came from.
  for (const v of item.variants) {
    if ((v.id === tried.id && !short) || (available && !available.includes(v.id))) v.stock_left = 0;
  }
  if (!available) return; // the next refresh shows what is left
  if (available.length === 0) {
    item.stock_left = 0;
    return; // the message already says sold out
  }
  if (short) {
    say(`Fewer than ${quantity} ${several() ? tried.label : ''} left: choose a smaller quantity.`.replace('  ', ' '), 'warn');
    return;
  }
  const next = item.variants.find((v) => available.includes(v.id));
  if (!next || !several()) return;
  picker.choose(next.id);
  say(`${tried.label} just sold out. We picked ${next.label} for you instead: check it, then press Buy again.`, 'warn');
}

// buyWithRetry retries once, with the same Idempotency-Key, when the shop is
// busy: the retry can never buy twice. The body is exactly
// {"variant_id":V,"quantity":N}, the form the server reads fastest.
async function buyWithRetry(variantID, quantity) {
  const send = async () => api('POST', `/api/v1/items/${itemID}/purchase`, { variant_id: variantID, quantity },
    { 'Idempotency-Key': intentKey, 'X-Purchase-Token': await freshToken() });
  try {
    return await send();
  } catch (err) {
    if (err.status !== 503) throw err;
    await new Promise((r) => setTimeout(r, 1000 * (err.retryAfter || 1)));
    return send();
  }
}

let following = null;
let unfollow = () => {};

// follow shows an order and, while it is pending, follows it over the
// server's event stream (orderfeed.js). The stream is closed as soon as the
// order is no longer pending: this page has no Pay button, so what happens
// next (paid, cancelled, the payment timeout) is the orders page's to show,
// and an open sale page keeps no stream for it.
function follow(orderID, status, label = '') {
  if (following === orderID) return; // already shown and followed
  unfollow();
  following = orderID;
  $('#order').classList.remove('hidden');
  $('#order-id').textContent = orderID;
  $('#order-variant').textContent = label && several() ? ` (${label})` : '';
  show(status);
  if (status !== 'pending') return; // settled: nothing to wait for
  unfollow = followOrder(orderID, {
    wanted: (o) => o.status === 'pending',
    onOrder: (o) => { if (following === orderID) show(o.status); },
    onGone: () => { if (following === orderID) show('gone'); },
  });
}

// notes say what a status means here; a confirmed order is paid for on the
// orders page, which this page no longer follows it to.
const notes = {
  pending: () => ['reserved; saving your order…'],
  confirmed: () => ['saved. Pay for it in ', el('a', { href: '/orders', textContent: 'My orders' }), '.'],
  gone: () => ['this order could not be saved.'],
};

// show paints an order's status; "gone" is the stream's word for an order
// that no longer exists.
function show(status) {
  const b = $('#order-status');
  b.className = `badge ${status === 'gone' ? 'cancelled' : status}`;
  b.textContent = status === 'gone' ? 'not found' : status;
  $('#order-note').replaceChildren(...(notes[status] ? notes[status]() : []));
}

function renderRoom() {
  const v = roomView;
  $('#room').dataset.state = v.state;
  const [headline, note] = describe(v, item.room_rate);
  $('#room-headline').textContent = headline;
  $('#room-note').textContent = v.error || note;
  $('#room-position').textContent = v.position ?? '—';
  $('#room-ahead').textContent = v.ahead ?? '—';
  $('#room-wait').textContent = waitText(v.waitSeconds);
  $('#room-queued').textContent = v.queued;
  renderChance(v);
}

// renderChance shows the waiting shopper's chance while they have one to
// wait for. Once the room is sold out the headline and note say what is
// left to hope for, with a way out; place, wait and Buy mean nothing then.
function renderChance(v) {
  const soldOut = v.state === 'sold_out';
  for (const sel of ['#room-stats', '#buy-form']) $(sel).classList.toggle('hidden', soldOut);
  $('#room-leave').classList.toggle('hidden', !soldOut);
  const c = v.state === 'waiting' || v.state === 'paused' ? v.chance : null;
  $('#room-chance').classList.toggle('hidden', !c);
  $('#room').dataset.outlook = v.chance ? v.chance.outlook : '';
  if (c) {
    const [label, text] = chanceWords(c);
    $('#room-chance-label').textContent = label;
    $('#room-chance-label').className = `badge chance-${c.outlook}`;
    $('#room-chance-text').textContent = text;
  }
}

// enterRoom joins the sale's waiting room unless there is nothing left to
// queue for; a shopper who already holds an order has no need to queue.
function enterRoom(holdsOrder) {
  $('#room').classList.remove('hidden');
  const st = liveStatus(item, serverNow());
  if (!user || holdsOrder || st === 'ended') {
    $('#room-headline').textContent = holdsOrder ? 'You already hold an order for this sale.'
      : (st === 'ended' ? 'This sale has ended.' : 'Sign in to join the waiting room.');
    return;
  }
  waitingRoom(itemID, (v) => {
    roomView = v;
    // The room hears of stock changes first: a sell-out shows at once.
    if (v.stockLeft !== null) item.stock_left = v.stockLeft;
    renderRoom();
    tick();
  }).join();
}

async function main() {
  // The countdown waits for the clock: a Buy button going by the browser's
  // clock could turn on early or late.
  [user] = await Promise.all([header(), refresh(), syncWithServer(3)]);
  if (!item) {
    $('#missing').classList.remove('hidden');
    return;
  }
  renderOnce();
  if (item.mode === 'draw') {
    $('#buy-form').classList.add('hidden');
    draw = new Draw({ itemID, user, item: () => item, picker, onOrder: follow });
  }
  signInForm($('#signin-form'), () => location.reload());
  $('#buy-form').addEventListener('submit', (ev) => { ev.preventDefault(); purchase(); });
  let mine = null;
  if (user) {
    try {
      mine = (await api('GET', '/api/v1/orders')).orders.find((o) => String(o.item_id) === itemID && o.status !== 'cancelled');
      if (mine) follow(mine.order_id, mine.status, mine.variant_label);
    } catch { /* no orders shown; buying still works */ }
  }
  if (draw) draw.start();
  else if (hasRoom()) enterRoom(!!mine);
  tick();
  setInterval(tick, 100);
  setInterval(() => refresh(), 1000);
  keepClockSynced(30000);
}

main();
