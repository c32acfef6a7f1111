// A draw sale on its page. Before entries open it counts down; while they
// are open the shopper picks a size and enters (after solving a proof of
// work); at the close the server draws, and the page shows the result:
// won (buy within the window, with the token the entry carries), waitlisted
// (the place, which may turn into a win when a winner does not buy) or not
// drawn. The page asks the server for the draw and the entry at a pace set
// by what it waits for, and stops asking once nothing can change.
// At entry the page picks the entry's secret and keeps it on this device
// with the entry id and the commitment it showed (drawkeep.js), for the
// check page to hold the published draw to.
import { $, api, humanError, newKey, countdown, serverNow } from './api.js';
import { withProof } from './pow.js';
import { describeDraw, short, entriesPhase, entriesBadge } from './drawtext.js';
import { ProofBox } from './drawproof.js';
import { newSecret, entryID } from './drawcheck.js';
import { kept, keep } from './drawkeep.js';

const PHASES = ['upcoming', 'entries_open', 'drawing', 'drawn'];
const OPEN_POLL_MS = 10000; // while entries are open: the entry count
const DRAWING_POLL_MS = 2000; // after the close, until the draw is published
const RESULT_POLL_MS = 3000; // a waitlist place or a win's window
// Pages spread their first requests after the open and the close over this
// long, so a crowd of open pages is not a stampede at that second.
const SPREAD_MS = 1500;

// Refused is an entry answer this device does not keep: it does not
// match what the device sent.
class Refused extends Error {}

// answered checks the server's answer to an entry against what this device
// sent (the secret it chose, the size, the salt it was shown) and the entry
// id computed here; it returns what to keep, all of it this device's own.
async function answered(e, sent) {
  const refuse = (what) => new Refused(`The shop's answer to your entry does not match what this browser sent (${what}), so nothing was kept on this device to check the draw with. Reload the page and enter again; if this goes on, the shop may be tampering with entries.`);
  if (e.entry_secret !== sent.secret) throw refuse('another entry secret');
  if (e.variant_id !== sent.variantID) throw refuse('another size');
  if (sent.salt && e.salt !== sent.salt) throw refuse('another salt than the one published');
  const id = await entryID(e.salt, sent.secret, sent.user);
  if (!id || e.entry_id !== id) throw refuse('an entry id that is not SHA-256 of the salt, your secret and your user id');
  return { entry_secret: sent.secret, entry_id: id, salt: e.salt, variant_id: sent.variantID, commitment: e.commitment };
}

export class Draw {
  // item returns the sale as last read; onOrder(orderID, status, label)
  // shows an order the shopper holds.
  constructor({ itemID, user, item, picker, onOrder }) {
    Object.assign(this, { itemID, user, item, picker, onOrder });
    this.path = `/api/v1/items/${encodeURIComponent(itemID)}`;
    this.draw = null; // GET …/draw, last answer
    this.entry = user ? undefined : null; // GET …/entry: null when not entered, undefined until known
    this.busy = ''; // 'entering' | 'buying'
    this.changing = false;
    this.error = '';
    this.buyKey = null; // one Idempotency-Key per purchase intent
    this.kept = user ? kept(itemID, user) : null; // this device's record of the entry
    this.proof = new ProofBox($('#draw-proof'), itemID);
    this.timers = {};
    $('#draw').classList.remove('hidden');
    $('#sale').classList.add('draw-sale');
  }

  start() {
    $('#enter').addEventListener('click', () => this.enter());
    $('#draw-buy').addEventListener('click', () => this.buy());
    $('#change').addEventListener('click', () => { this.changing = true; this.error = ''; });
    $('#keep').addEventListener('click', () => {
      this.changing = false;
      this.picker.choose(this.entry.variant_id);
    });
    this.pollDraw();
    if (this.user) this.pollEntry();
  }

  // phase goes by the synced clock for the opening and the close, so the
  // page turns at the second, and by the server for the draw itself; it
  // never goes back.
  phase(now) {
    let p = { upcoming: 0, entries_open: 1, closed: 2 }[entriesPhase(this.item(), now)];
    if (this.draw) p = Math.max(p, PHASES.indexOf(this.draw.phase));
    return PHASES[p];
  }

  later(name, fn, ms) {
    clearTimeout(this.timers[name]);
    this.timers[name] = setTimeout(fn, Math.max(ms, 0));
  }

  async pollDraw() {
    try {
      this.draw = await api('GET', `${this.path}/draw`, undefined, {}, 'no-cache');
    } catch { /* keep the last answer; the next poll retries */ }
    const now = serverNow();
    const it = this.item();
    const phase = this.phase(now);
    if (phase === 'drawn') {
      if (this.entry !== null) this.pollEntry(); // the result is out
      return; // what the page shows of a published draw does not change
    }
    if (this.ended()) {
      if (this.entry !== null) this.pollEntry(); // ended undrawn: everyone lost
      return;
    }
    const spread = Math.random() * SPREAD_MS;
    if (phase === 'upcoming') this.later('draw', () => this.pollDraw(), Date.parse(it.entries_open_at) - now + spread);
    else if (phase === 'entries_open') this.later('draw', () => this.pollDraw(), Math.min(OPEN_POLL_MS, Date.parse(it.entries_close_at) - now + spread));
    else this.later('draw', () => this.pollDraw(), DRAWING_POLL_MS);
  }

  // pollEntry reads the shopper's entry; after the draw it goes on while
  // the result can still change: not out yet, a waitlist place, or a win
  // not yet bought within its window.
  async pollEntry() {
    try {
      this.entry = await api('GET', `${this.path}/entry`, undefined, {}, 'no-store');
      // A change of size starts from the size entered.
      if (!this.picker.chosen(this.item())) this.picker.choose(this.entry.variant_id);
      if (this.entry.order_id) this.onOrder(this.entry.order_id, 'pending', this.label(this.entry.variant_id));
    } catch (err) {
      if (err.code === 'entry_not_found') this.entry = null;
    }
    if (this.phase(serverNow()) !== 'drawn' || this.ended()) return;
    const e = this.entry;
    const open = e && (!e.result || e.result === 'waitlist' || (e.result === 'won' && !e.order_id && e.purchase_deadline));
    if (open) this.later('entry', () => this.pollEntry(), RESULT_POLL_MS);
  }

  ended() { return serverNow() >= Date.parse(this.item().ends_at); }

  label(variantID) {
    const it = this.item();
    if (it.variants.length < 2) return '';
    const v = it.variants.find((x) => x.id === variantID);
    return v ? v.label : '';
  }

  async enter() {
    const v = this.picker.chosen(this.item());
    if (!v || this.busy) return;
    this.busy = 'entering';
    this.error = '';
    try {
      const before = kept(this.itemID, this.user);
      // The secret is this device's own: the one it kept, or a fresh one.
      // Never the server's (GET …/entry shows it): a server that chose the
      // secret could choose the entry id, and so its place. An entry made
      // on another device gets a new secret here, and that device's record
      // no longer finds it (its check says the entry is missing).
      const secret = (before && before.entry_secret) || newSecret();
      const send = (headers) => api('POST', `${this.path}/entry`, { variant_id: v.id, entry_secret: secret }, headers);
      const e = await withProof(this.itemID, send);
      const mine = await answered(e, { secret, user: this.user, variantID: v.id, salt: (before && before.salt) || (this.draw && this.draw.salt) });
      this.kept = keep(this.itemID, this.user, mine, this.draw && this.draw.seed_sha256);
      this.entry = { ...e, result: null, position: null, purchase_deadline: null, purchase_token: null, order_id: null };
      this.changing = false;
      this.pollDraw(); // the entry count now counts this one
    } catch (err) {
      if (err instanceof Refused) {
        this.error = err.message;
        return;
      }
      this.error = err.code === 'proof_of_work_required' ? 'Your browser could not get ready to enter. Please try again.' : humanError(err);
      if (err.code === 'entries_closed' || err.code === 'entries_not_open') this.pollDraw();
    } finally {
      this.busy = '';
    }
  }

  async buy() {
    const e = this.entry;
    if (!e || !e.purchase_token || this.busy) return;
    this.busy = 'buying';
    this.error = '';
    this.buyKey = this.buyKey || newKey();
    try {
      const res = await api('POST', `${this.path}/purchase`, { variant_id: e.variant_id, quantity: 1 },
        { 'Idempotency-Key': this.buyKey, 'X-Purchase-Token': e.purchase_token });
      e.order_id = res.order_id;
      this.onOrder(res.order_id, res.status, this.label(e.variant_id));
    } catch (err) {
      if (!(err.status >= 500 || err.status === 429 || !err.status)) this.buyKey = null; // a final answer
      if (err.code === 'already_purchased' && err.orderId) {
        e.order_id = err.orderId;
        this.onOrder(err.orderId, 'pending', this.label(e.variant_id));
      } else {
        this.error = humanError(err);
        this.pollEntry(); // the window may have passed: show what the server says
      }
    } finally {
      this.busy = '';
    }
  }

  // paint shows the draw as of now (the synced clock): the sale's status
  // and countdown, the panel's words and buttons, the picker, the proof.
  paint(now) {
    const it = this.item();
    const phase = this.phase(now);
    const e = this.entry;
    const openAt = Date.parse(it.entries_open_at);
    const closeAt = Date.parse(it.entries_close_at);
    const ended = now >= Date.parse(it.ends_at);
    const [state, headline, note, clock = ''] = describeDraw({ phase, signedIn: !!this.user, entry: e, label: e ? this.label(e.variant_id) : '',
      changing: this.changing, openAt, closeAt, now, ended });
    $('#draw').dataset.state = state;
    $('#draw').dataset.phase = phase;
    $('#draw-words').textContent = headline;
    $('#draw-clock').textContent = clock;
    $('#draw-note').textContent = note;
    $('#draw-error').textContent = this.error;
    this.paintStatus(phase, now, openAt, closeAt, ended);
    if (phase !== 'drawn') this.paintUnits();
    this.paintActions(state, phase);
    this.proof.paint(this.draw, e, this.kept);
  }

  paintStatus(phase, now, openAt, closeAt, ended) {
    const badge = $('#status');
    const [cls, text] = ended ? ['ended', 'Ended'] : { ...entriesBadge, drawing: ['paused', 'Drawing'], drawn: ['drawn', 'Drawn'] }[phase];
    badge.className = `badge ${cls}`;
    badge.textContent = text;
    const e = this.entry;
    const window = e && e.result === 'won' && !e.order_id && e.purchase_deadline ? Date.parse(e.purchase_deadline) - now : 0;
    let when = 'Ends in';
    let left = countdown(Date.parse(this.item().ends_at) - now);
    if (phase === 'upcoming') [when, left] = ['Entries open in', countdown(openAt - now)];
    else if (phase === 'entries_open') [when, left] = ['Draw in', countdown(closeAt - now)];
    else if (phase === 'drawing') [when, left] = ['Draw', 'now'];
    else if (window > 0) [when, left] = ['Buy within', short(window)];
    else if (ended) [when, left] = ['Ended', '00:00:00'];
    $('#when').textContent = when;
    $('#countdown').textContent = left;
  }

  // paintUnits says how many units each size has to give out: before the
  // draw nothing is "left" or sold out.
  paintUnits() {
    const it = this.item();
    $('#stock-label').textContent = 'Units';
    $('#stock').textContent = String(it.stock_total);
    for (const v of it.variants) {
      const b = $(`#variants [data-variant="${v.id}"] .v-stock`);
      if (b) b.textContent = `${v.stock_total} ${v.stock_total === 1 ? 'unit' : 'units'}`;
    }
  }

  // paintActions shows the buttons that make sense in state; the picker
  // shows while a size can be chosen.
  paintActions(state, phase) {
    const it = this.item();
    const choosing = phase !== 'drawing' && phase !== 'drawn' && (state === 'open' || state === 'upcoming' || state === 'changing');
    $('#variants').classList.toggle('hidden', it.variants.length < 2 || !choosing || (!this.user && phase !== 'upcoming'));
    const v = this.picker.chosen(it);
    const enter = $('#enter');
    enter.classList.toggle('hidden', !this.user || !(state === 'open' || state === 'changing' || state === 'upcoming'));
    const same = state === 'changing' && v && this.entry && v.id === this.entry.variant_id;
    enter.disabled = !!this.busy || phase !== 'entries_open' || !v || same;
    enter.textContent = this.busy === 'entering' ? 'Getting ready…'
      : (state === 'changing' ? (v && !same ? `Switch to ${v.label}` : 'Choose another size') : 'Enter the draw');
    $('#change').classList.toggle('hidden', state !== 'entered' || it.variants.length < 2);
    $('#keep').classList.toggle('hidden', state !== 'changing');
    $('#keep').textContent = this.entry ? `Keep ${this.label(this.entry.variant_id)}` : 'Keep';
    const buy = $('#draw-buy');
    buy.classList.toggle('hidden', state !== 'won');
    buy.disabled = !!this.busy;
    buy.textContent = this.busy === 'buying' ? 'Buying…' : 'Buy';
    $('#signin-title').textContent = 'Sign in to enter the draw';
    $('#signin').classList.toggle('hidden', !!this.user || phase === 'drawing' || phase === 'drawn');
  }
}
