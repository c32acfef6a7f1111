// The draw's part of the admin page: the sale form's "Sale type" choice
// and a draw's fields, and the line that tells a draw apart in the live
// table. A draw's mode and entry times are set when it is created (the API
// refuses them on update), so editing one shows them but cannot change them.
import { $, el, localInput } from './api.js';
import { update as updateRows } from './adminrows.js';

const form = () => $('#sale-form');
const field = (n) => form().elements.namedItem(n);
const drawFields = ['entries_open_at', 'entries_close_at', 'purchase_window', 'purchase_window_unit'];
let stashedStart = ''; // the first-come opening, kept while the form shows a draw

const notes = {
  first_come: 'Whoever buys first gets a unit, through the waiting room if it has one.',
  draw: 'Shoppers enter while entries are open; at their close the winners are drawn at random, one unit each, '
    + 'and each has a set time to buy before the unit passes to the next on the waitlist.',
};

export const mode = () => field('mode').value;

export function init() {
  for (const r of form().querySelectorAll('input[name="mode"]')) r.addEventListener('change', switched);
}

// reset follows the form's own reset: first come, entries an hour long
// from the given opening.
export function reset(opens) {
  field('entries_open_at').value = localInput(opens);
  field('entries_close_at').value = localInput(new Date(opens.getTime() + 3600000));
  for (const n of ['mode', ...drawFields]) setDisabled(n, false);
  stashedStart = '';
  show();
}

// switched moves the times a sale type does not share: a draw's purchases
// open at the close of its entries unless set, and it must not end before.
function switched() {
  const starts = field('starts_at');
  if (mode() === 'draw') {
    stashedStart = starts.value;
    starts.value = '';
    const close = Date.parse(field('entries_close_at').value);
    if (!(Date.parse(field('ends_at').value) > close)) field('ends_at').value = localInput(new Date(close + 3600000));
  } else if (starts.value === '') {
    starts.value = stashedStart || field('entries_open_at').value;
  }
  show();
}

// show lays the form out for its sale type.
function show() {
  const draw = mode() === 'draw';
  form().classList.toggle('draw', draw);
  $('#sale-type-note').textContent = notes[mode()];
  const limit = field('per_user_limit');
  if (draw) limit.value = '1';
  limit.disabled = draw;
  const starts = field('starts_at');
  if (draw) starts.setAttribute('aria-describedby', 'starts-hint');
  else starts.removeAttribute('aria-describedby');
  updateRows(); // the rows' note names what a blank cell takes from the sale
}

function setDisabled(name, on) {
  const f = field(name);
  if (f instanceof RadioNodeList) f.forEach((r) => { r.disabled = on; });
  else f.disabled = on;
}

// seconds reads the winner's time to buy in its unit; what it cannot read
// is sent as typed, so the API names the field.
function seconds() {
  const v = field('purchase_window').value.trim();
  if (v === '' || Number.isNaN(Number(v))) return v === '' ? undefined : v;
  return Math.round(Number(v) * Number(field('purchase_window_unit').value));
}

// body is what the sale type adds to a new sale's body, and omit what it
// takes out of it: a draw's limit is 1 and it has no waiting room, which
// the API sets itself.
export function body(iso) {
  if (mode() !== 'draw') return { add: {}, omit: [] };
  return {
    add: {
      mode: 'draw', entries_open_at: iso(field('entries_open_at').value),
      entries_close_at: iso(field('entries_close_at').value), purchase_window_seconds: seconds(),
    },
    omit: ['per_user_limit', 'room_rate'],
  };
}

// load shows a sale being edited: its type and, for a draw, its entry
// times and window, none of which can change any more.
export function load(it) {
  field('mode').value = it.mode;
  if (it.mode === 'draw') {
    field('entries_open_at').value = localInput(new Date(it.entries_open_at));
    field('entries_close_at').value = localInput(new Date(it.entries_close_at));
    const w = it.purchase_window_seconds;
    field('purchase_window_unit').value = w % 60 === 0 ? '60' : '1';
    field('purchase_window').value = String(w % 60 === 0 ? w / 60 : w);
  }
  for (const n of ['mode', ...drawFields]) setDisabled(n, true);
  show();
  $('#sale-type-note').textContent = `${notes[it.mode]} The sale type${it.mode === 'draw' ? ', entry times and time to buy are' : ' is'} set when a sale is created.`;
}

const phaseText = {
  upcoming: (r) => `entries open at ${when(r.entries_open_at)}`,
  entries_open: (r) => `entries open until ${when(r.entries_close_at)}`,
  drawing: () => 'entries closed, drawing',
  drawn: () => 'drawn',
  ended: () => 'ended, not drawn',
};

// when is a time of day, with the date when it is not today's.
function when(iso) {
  const d = new Date(iso);
  const time = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return d.toDateString() === new Date().toDateString() ? time : `${d.toLocaleDateString([], { month: 'short', day: 'numeric' })} ${time}`;
}

// phaseLine is what a dashboard row adds beneath its status: a draw's
// phase (its status says only when purchases open), nothing for first come.
export function phaseLine(r) {
  if (r.mode !== 'draw' || !r.draw_phase) return [];
  return [el('span', { class: 'draw-phase', 'data-phase': r.draw_phase },
    el('span', { class: 'badge mode-draw', textContent: 'draw' }), ` ${phaseText[r.draw_phase](r)}`)];
}
