// Shared helpers of the pages: calling the API, human error messages, and a
// clock synced to the server's, never the browser's.

export class APIError extends Error {
  constructor(status, body, retryAfter) {
    const e = (body && body.error) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.code = e.code || `http_${status}`;
    this.field = e.field || '';
    this.orderId = e.order_id || '';
    // A sold-out variant's answer names the variants still on sale.
    this.availableVariants = Array.isArray(e.available_variants) ? e.available_variants : null;
    // A refused proof of work carries a fresh challenge (pow.js).
    this.challenge = e.challenge || '';
    this.difficulty = Number(e.difficulty) || 0;
    this.retryAfter = Number(retryAfter) || 0;
  }
}

// api calls the shop's API. cache is fetch's cache mode: 'default' lets
// the browser's HTTP cache answer or revalidate as the answer's headers say.
export async function api(method, path, body, headers = {}, cache = 'default') {
  const init = { method, headers: { ...headers }, credentials: 'same-origin', cache };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data = null;
  try { data = await res.json(); } catch { /* empty or non-JSON body */ }
  if (!res.ok) throw new APIError(res.status, data, res.headers.get('Retry-After'));
  return data;
}

const messages = {
  sold_out: 'Sold out. Every unit has been claimed.',
  already_purchased: 'You already bought this item.',
  not_started: 'The sale has not started yet.',
  ended: 'This sale has ended.',
  sale_paused: 'The shop paused this sale for a moment. Keep this page open: it goes on from here when the sale resumes.',
  rate_limited: 'Too many requests. Please wait a moment and try again.',
  unavailable: 'The shop is very busy right now. Please try again in a moment.',
  internal: 'Something went wrong on our side. Please try again.',
  unauthenticated: 'Please sign in first.',
  item_not_found: 'This sale does not exist.',
  entries_not_open: 'Entries for this draw are not open yet.',
  entries_closed: 'Entries for this draw have closed.',
  not_a_draw: 'This sale is not a draw: reload the page.',
  not_admitted: 'Your turn in the waiting room is not open: it has not come yet, it has passed, or it was used to buy.',
  variant_required: 'Choose a size or option first.',
  variant_not_found: 'That option is no longer on sale. Reload the page to see what is.',
  waiting_room: 'This sale sells through its waiting room: wait for your turn, then buy.',
  proof_of_work_required: 'Your browser could not get ready to join. Please reload the page.',
  network: 'Cannot reach the shop. Check your connection and try again.',
};

// pausedMessage is what a page says while an admin has its sale paused.
export const pausedMessage = messages.sale_paused;

// humanError turns an API error into a sentence for shoppers.
export function humanError(err) {
  if (!(err instanceof APIError)) return messages.network;
  if (err.status === 429) return messages.rate_limited;
  if (messages[err.code]) return messages[err.code];
  if (err.status >= 500) return messages.internal;
  return err.message;
}

let offsetMs = 0;
let uncertaintyMs = Infinity; // half the round trip of the sample offsetMs came from

// syncClock sets the offset between the server's clock and ours from a
// response's server_time, taking the middle of the round trip.
export function syncClock(serverTime, sentAt, receivedAt) {
  offsetMs = Date.parse(serverTime) - (sentAt + receivedAt) / 2;
  uncertaintyMs = (receivedAt - sentAt) / 2;
}

// sampleClock asks GET /api/v1/time once: {offset, uncertainty} in ms. The
// answer is no-store, so no cache can hand back an old time.
async function sampleClock() {
  const sent = Date.now();
  const { server_time: t } = await api('GET', '/api/v1/time');
  const received = Date.now();
  return { offset: Date.parse(t) - (sent + received) / 2, uncertainty: (received - sent) / 2 };
}

// adopt keeps a sample when it is more precise than the offset in use, or
// when the two cannot both be right (their error bars do not overlap): the
// browser's clock jumped (a sleeping laptop, an NTP step), so the old
// offset is wrong however precise it was.
function adopt(s) {
  if (s.uncertainty <= uncertaintyMs || Math.abs(s.offset - offsetMs) > s.uncertainty + uncertaintyMs) {
    offsetMs = s.offset;
    uncertaintyMs = s.uncertainty;
  }
}

// syncWithServer sets the clock from the best of n samples, the one with
// the shortest round trip: a slow answer's midpoint may be off by half of
// its trip. The samples are taken one after another so none waits on another.
export async function syncWithServer(n = 3) {
  for (let i = 0; i < n; i++) {
    try { adopt(await sampleClock()); } catch { /* keep the samples that came */ }
  }
}

// keepClockSynced samples the server's clock again every everyMs, one
// request each time: the sale page's countdown needs nothing else.
export function keepClockSynced(everyMs = 30000) {
  setInterval(() => sampleClock().then(adopt, () => { /* the next one retries */ }), everyMs);
}

export const serverNow = () => Date.now() + offsetMs;

// fetchItems loads a page of the sales, the first without a cursor, and
// syncs the clock with the same answer: {items, next}, next being the
// cursor of the page after, or null on the last page.
export async function fetchItems(cursor = null) {
  const sent = Date.now();
  const data = await api('GET', cursor ? `/api/v1/items?cursor=${encodeURIComponent(cursor)}` : '/api/v1/items');
  syncClock(data.server_time, sent, Date.now());
  return { items: data.items, next: data.next_cursor || null };
}

// fetchItem loads one sale, or null when there is no such sale. It uses
// the browser's HTTP cache as it is (fetch's default mode): the answer may
// be kept for a second, then it is revalidated with If-None-Match, and an
// unchanged sale costs a 304 with no body. revalidate skips the second
// the cache may keep it, for when the page knows the stock just moved.
export async function fetchItem(id, revalidate = false) {
  try {
    return await api('GET', `/api/v1/items/${encodeURIComponent(id)}`, undefined, {}, revalidate ? 'no-cache' : 'default');
  } catch (err) {
    if (err.code === 'item_not_found') return null;
    throw err;
  }
}

const pad = (n) => String(n).padStart(2, '0');

// countdown formats a duration as [Nd ]HH:MM:SS.
export function countdown(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(s / 86400);
  const hms = `${pad(Math.floor(s / 3600) % 24)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
  return d > 0 ? `${d}d ${hms}` : hms;
}

export const price = (cents) => (cents / 100).toLocaleString('en-US', { style: 'currency', currency: 'USD' });

// priceText is a sale's price: "from $X" (the lowest) when its variants'
// prices differ.
export function priceText(item) {
  const cents = (item.variants || []).map((v) => v.price_cents);
  if (cents.length < 2 || cents.every((c) => c === cents[0])) return price(cents.length ? cents[0] : item.price_cents);
  return `from ${price(Math.min(...cents))}`;
}

// liveStatus recomputes a sale's status against the synced clock.
export function liveStatus(item, now = serverNow()) {
  if (now >= Date.parse(item.ends_at)) return 'ended';
  if (item.paused) return 'paused';
  if (now < Date.parse(item.starts_at)) return 'upcoming';
  if (item.stock_left <= 0) return 'sold_out';
  return 'live';
}

// variantStatus is liveStatus for one variant: its own stock, the sale's window.
export const variantStatus = (item, v, now = serverNow()) => liveStatus({ ...item, stock_left: v.stock_left }, now);

export const statusLabel = { live: 'Live', upcoming: 'Soon', sold_out: 'Sold out', ended: 'Ended', paused: 'Paused' };

export async function whoami() {
  try {
    return (await api('GET', '/api/v1/session')).user_id;
  } catch {
    return null;
  }
}

export async function signIn(userId) {
  return (await api('POST', '/api/v1/session', { user_id: userId })).user_id;
}

export async function signOut() {
  await api('DELETE', '/api/v1/session');
}

// newKey is a fresh Idempotency-Key: one per purchase intent, reused by its retries.
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export const $ = (sel, root = document) => root.querySelector(sel);

// localInput is a Date as a datetime-local input's value, in local time.
export const localInput = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-') || k.startsWith('aria-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  e.append(...children);
  return e;
}

// header fills the shared top bar with the signed-in shopper.
export async function header() {
  const who = await whoami();
  const box = $('#who');
  if (!box) return who;
  box.replaceChildren();
  if (who) {
    const out = el('button', { type: 'button', textContent: 'Sign out' });
    out.addEventListener('click', async () => { await signOut(); location.reload(); });
    box.append(el('span', { class: 'who', textContent: `Signed in as ${who}` }), ' ', out);
  }
  return who;
}

// signInForm wires a sign-in form; onDone runs with the user id.
export function signInForm(form, onDone) {
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const input = form.querySelector('input');
    const msg = form.querySelector('.message');
    msg.textContent = '';
    try {
      onDone(await signIn(input.value.trim()));
    } catch (err) {
      msg.textContent = err.code === 'invalid_request'
        ? 'Use 1 to 64 letters, digits or . _ @ - (no spaces).' : humanError(err);
    }
  });
}
