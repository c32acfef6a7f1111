// The admin dashboard: sign-in (the token becomes an HttpOnly session
// cookie), a live table pushed over Server-Sent Events, a sell-through chart
// for the sale in focus, and a form to create and edit sales and their
// variants. A sale of several variants shows a row per variant beneath it;
// a draw's row says where its draw stands.
import { $, el, api, APIError, price, localInput } from './api.js';
import * as chart from './sellchart.js';
import * as vrows from './adminrows.js';
import * as draws from './admindraw.js';

let source = null;
let focus = null; // item id of the charted sale
let editing = null; // item id being edited, null when creating
let last = null; // the latest snapshot
let offsetMs = 0; // the server's clock minus ours, from the snapshots

// ---- sign-in ------------------------------------------------------------
async function signedIn() {
  try { await api('GET', '/api/v1/admin/session'); return true; } catch { return false; }
}

function showSignIn(msg = '') {
  if (source) source.close();
  $('#dashboard').classList.add('hidden');
  $('#signout').classList.add('hidden');
  $('#admin-signin').classList.remove('hidden');
  $('#admin-signin-msg').textContent = msg;
  $('#admin-token').focus();
}

$('#admin-signin-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const input = $('#admin-token');
  try {
    await api('POST', '/api/v1/admin/session', { token: input.value });
    input.value = ''; // the page never keeps the token
    start();
  } catch (err) {
    input.value = '';
    $('#admin-signin-msg').textContent = err instanceof APIError && err.status === 401
      ? 'That admin token is not right.' : 'Cannot sign in right now. Try again.';
  }
});

$('#signout').addEventListener('click', async () => {
  await api('DELETE', '/api/v1/admin/session');
  showSignIn('Signed out.');
});

// ---- live table -----------------------------------------------------------
function start() {
  $('#admin-signin').classList.add('hidden');
  $('#dashboard').classList.remove('hidden');
  $('#signout').classList.remove('hidden');
  resetForm();
  source = new EventSource('/api/v1/admin/events');
  source.addEventListener('open', () => { $('#conn').textContent = 'live'; });
  source.addEventListener('stats', (ev) => onSnapshot(JSON.parse(ev.data)));
  source.addEventListener('error', async () => {
    $('#conn').textContent = 'reconnecting…';
    if (!(await signedIn())) showSignIn('Your session ended. Sign in again.');
  });
}

// shown is the variants a sale's rows list: none for a one-variant sale,
// whose only variant's figures are the sale's own.
const shown = (r) => (r.variants && r.variants.length > 1 ? r.variants : []);

function onSnapshot(snap) {
  last = snap;
  window.dispatchEvent(new CustomEvent('admin:snapshot', { detail: snap })); // for the audit panel
  offsetMs = Date.parse(snap.server_time) - Date.now();
  const t = Date.parse(snap.server_time) / 1000;
  $('#cost').textContent = `Last snapshot took ${snap.compute_ms.toFixed(1)} ms on the server.`;
  const body = $('#rows');
  const layout = snap.rows.map((r) => [r.item_id, ...shown(r).map((v) => v.variant_id)].join('.')).join();
  if (body.dataset.layout !== layout) {
    body.dataset.layout = layout;
    body.replaceChildren(...snap.rows.flatMap((r) => [rowElement(r), ...shown(r).map((v) => variantElement(r, v))]));
  }
  for (const r of snap.rows) {
    paintRow(r);
    chart.record(r, t);
  }
  chart.draw($('#chart'));
}

const cells = ['name', 'status', 'stock_total', 'stock_mysql', 'stock_redis', 'orders_pending', 'orders_confirmed', 'sold', 'invariants'];

function cellsOf(tr) {
  for (const c of cells) {
    const numeric = c.startsWith('stock') || c.startsWith('orders') || c === 'sold';
    tr.append(el('td', { class: numeric ? 'num' : '', 'data-cell': c }));
  }
  return tr;
}

// variantElement is a variant's row under its sale's; data-of names the
// sale (data-item stays the sale rows' alone).
function variantElement(r, v) {
  const tr = cellsOf(el('tr', { class: 'variant-row', 'data-of': String(r.item_id), 'data-variant': String(v.variant_id) }));
  tr.append(el('td'));
  return tr;
}

function rowElement(r) {
  const tr = cellsOf(el('tr', { 'data-item': String(r.item_id) }));
  const chartBtn = el('button', { type: 'button', textContent: 'Chart' });
  chartBtn.addEventListener('click', () => setFocus(r.item_id, r.name));
  const editBtn = el('button', { type: 'button', textContent: 'Edit' });
  editBtn.addEventListener('click', () => edit(r.item_id));
  const warmBtn = el('button', { type: 'button', 'data-act': 'warm', textContent: 'Re-warm' });
  warmBtn.addEventListener('click', () => rewarm(r.item_id));
  const pauseBtn = el('button', { type: 'button', 'data-act': 'pause', textContent: 'Pause' });
  pauseBtn.addEventListener('click', () => control(r.item_id, pauseBtn.dataset.act));
  const endBtn = el('button', { type: 'button', 'data-act': 'end', textContent: 'End now' });
  endBtn.addEventListener('click', () => confirmEnd(r.item_id, endBtn));
  const retireBtn = el('button', { type: 'button', 'data-act': 'retire', textContent: 'Retire' });
  retireBtn.addEventListener('click', () => control(r.item_id, 'retire'));
  const report = el('a', { class: 'button', href: `/admin/sales/${r.item_id}/report`, textContent: 'Report' });
  tr.append(el('td', {}, el('div', { class: 'actions' }, chartBtn, editBtn, warmBtn, pauseBtn, endBtn, retireBtn, report)));
  return tr;
}

// paintControls sets the live-control buttons from the sale's status.
function paintControls(tr, r) {
  const pause = tr.querySelector('button[data-act="pause"], button[data-act="resume"]');
  const paused = r.status === 'paused';
  pause.dataset.act = paused ? 'resume' : 'pause';
  pause.textContent = paused ? 'Resume' : 'Pause';
  pause.classList.toggle('primary', paused);
  pause.disabled = r.status === 'ended';
  tr.querySelector('button[data-act="end"]').disabled = r.status === 'ended';
  // Only an ended sale can be retired; the server says if its orders are
  // not settled yet. A live sale's row shows no Retire at all.
  const retire = tr.querySelector('button[data-act="retire"]');
  retire.classList.toggle('hidden', r.status !== 'ended');
  retire.disabled = r.retired;
  retire.textContent = r.retired ? 'Retired' : 'Retire';
  tr.querySelector('button[data-act="warm"]').disabled = r.retired; // a retired sale is never warmed again
  tr.querySelector('button[data-act="resume"], button[data-act="pause"]').classList.toggle('hidden', r.status === 'ended');
  tr.querySelector('button[data-act="end"]').classList.toggle('hidden', r.status === 'ended');
}

function paintRow(r) {
  const tr = document.querySelector(`tr[data-item="${r.item_id}"]`);
  paintFigures(tr, r);
  tr.querySelector('[data-cell="name"]').textContent = r.name;
  tr.querySelector('[data-cell="status"]').replaceChildren(badge(r.status), ...draws.phaseLine(r));
  tr.dataset.mode = r.mode;
  paintControls(tr, r);
  tr.classList.toggle('focused', r.item_id === focus);
  for (const v of shown(r)) {
    const vr = document.querySelector(`tr[data-of="${r.item_id}"][data-variant="${v.variant_id}"]`);
    paintFigures(vr, v);
    vr.querySelector('[data-cell="name"]').textContent = v.label;
    // A variant's own status matters only when it differs: sold out while
    // its sale sells on.
    const gone = r.status === 'live' && (v.stock_redis ?? v.stock_mysql) <= 0;
    vr.querySelector('[data-cell="status"]').replaceChildren(...(gone ? [badge('sold_out')] : []));
    vr.classList.toggle('focused', r.item_id === focus);
  }
}

const badge = (status) => el('span', { class: `badge ${status}`, textContent: status.replace('_', ' ') });

// paintFigures fills the cells a sale and a variant share.
function paintFigures(tr, f) {
  const set = (c, v) => { tr.querySelector(`[data-cell="${c}"]`).textContent = v; };
  for (const c of ['stock_total', 'stock_mysql', 'orders_pending', 'orders_confirmed', 'sold']) set(c, String(f[c]));
  set('stock_redis', f.stock_redis === null ? 'not warm' : String(f.stock_redis));
  const inv = tr.querySelector('[data-cell="invariants"]');
  const ok = el('span', { class: `badge ${f.consistent ? 'consistent' : 'drifted'}`, textContent: f.consistent ? 'consistent' : 'drifted' });
  inv.replaceChildren(ok, ...f.problems.map((p) => el('span', { class: 'problems', textContent: p })));
}

// ---- chart ----------------------------------------------------------------
function setFocus(id, name) {
  focus = id;
  chart.setFocus(id);
  $('#chart-title').textContent = `Sell-through: ${name}`;
  $('#chart-hint').classList.add('hidden');
  document.querySelectorAll('#rows tr').forEach((tr) => tr.classList.toggle('focused', (tr.dataset.item || tr.dataset.of) === String(id)));
  chart.draw($('#chart'));
}

window.addEventListener('resize', () => chart.resize($('#chart')));

// ---- create / edit --------------------------------------------------------
// field reads a form control by name (form.name would be the form's own name).
const field = (n) => $('#sale-form').elements.namedItem(n);

function resetForm() {
  editing = null;
  $('#sale-form').reset();
  const opens = new Date(Math.ceil(Date.now() / 60000) * 60000 + 5 * 60000);
  field('starts_at').value = localInput(opens);
  field('ends_at').value = localInput(new Date(opens.getTime() + 3600000));
  draws.reset(opens);
  $('#form-title').textContent = 'New sale';
  $('#sale-submit').textContent = 'Create sale';
  $('#sale-cancel').classList.add('hidden');
  vrows.reset();
  clearErrors();
}

function clearErrors() {
  document.querySelectorAll('.field-error').forEach((e) => { e.textContent = ''; });
  document.querySelectorAll('#sale-form .form-grid [aria-invalid]').forEach((i) => i.removeAttribute('aria-invalid'));
  vrows.clearErrors();
}

// formBody reads the form; values it cannot read are sent as they are, so
// the API's validation names the field. A sale's stock is its variants'
// when it has rows, and is changed row by row when editing. A draw adds
// its fields when created, and leaves out what the API fixes for it.
function formBody() {
  const iso = (v) => (v ? new Date(v).toISOString() : undefined);
  const p = field('price').value.trim();
  const variants = editing === null ? vrows.createBody() : undefined;
  const out = {
    name: field('name').value.trim(), description: field('description').value, image_url: field('image_url').value.trim(),
    price_cents: p === '' ? undefined : vrows.cents(p),
    stock_total: editing === null && !variants ? vrows.num(field('stock_total').value) : undefined,
    variants, per_user_limit: vrows.num(field('per_user_limit').value), room_rate: vrows.num(field('room_rate').value),
    starts_at: iso(field('starts_at').value), ends_at: iso(field('ends_at').value),
  };
  const d = draws.body(iso);
  for (const k of d.omit) delete out[k];
  return editing === null ? { ...out, ...d.add } : out;
}

$('#sale-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  clearErrors();
  const msg = $('#form-msg');
  msg.className = 'message';
  msg.textContent = 'Saving…';
  try {
    const it = editing === null
      ? await api('POST', '/api/v1/admin/items', formBody())
      : await api('PATCH', `/api/v1/admin/items/${editing}`, formBody());
    const n = it.variants.length;
    const what = it.mode === 'draw' ? 'draw ' : '';
    msg.className = 'message ok';
    msg.textContent = `${editing === null ? 'Created' : 'Saved'} ${what}"${it.name}" (${price(it.price_cents)}, ${it.stock_total} units${n > 1 ? ` in ${n} variants` : ''}).`;
    resetForm();
  } catch (err) {
    msg.className = 'message error';
    msg.textContent = err.message || 'Could not save the sale.';
    const box = document.querySelector(`.field-error[data-for="${CSS.escape(err.field)}"]`);
    if (box) {
      box.textContent = err.message;
      box.parentElement.querySelector('input:not([type="radio"]), textarea')?.setAttribute('aria-invalid', 'true');
    } else vrows.showError(err.field, err.message);
  }
});

$('#sale-cancel').addEventListener('click', resetForm);

async function edit(id) {
  const it = await api('GET', `/api/v1/items/${id}`);
  editing = id;
  field('name').value = it.name;
  field('description').value = it.description;
  field('price').value = (it.price_cents / 100).toFixed(2);
  field('stock_total').value = it.stock_total;
  field('image_url').value = it.image_url;
  field('per_user_limit').value = it.per_user_limit;
  field('room_rate').value = it.room_rate;
  field('starts_at').value = localInput(new Date(it.starts_at));
  field('ends_at').value = localInput(new Date(it.ends_at));
  draws.load(it);
  $('#form-title').textContent = `Edit: ${it.name}`;
  $('#sale-submit').textContent = 'Save changes';
  $('#sale-cancel').classList.remove('hidden');
  $('#form-msg').textContent = '';
  clearErrors();
  vrows.load(it, Date.parse(it.starts_at) <= Date.now() + offsetMs);
  field('name').focus();
}

// control pauses, resumes or ends a sale; the next snapshot repaints its row.
async function control(id, act) {
  const msg = $('#table-msg');
  const done = { pause: 'Paused', resume: 'Resumed', end: 'Ended', retire: 'Retired' }[act];
  try {
    const it = await api('POST', `/api/v1/admin/items/${id}/${act}`);
    msg.className = 'message ok';
    msg.textContent = `${done} sale ${id} (${it.name}): now ${it.status.replace('_', ' ')}.`;
  } catch (err) {
    msg.className = 'message error';
    msg.textContent = `Could not ${act} sale ${id}: ${err.message}`;
  }
}

// confirmEnd asks for a second click within five seconds before ending a
// sale: an end cannot be undone by a resume.
function confirmEnd(id, btn) {
  if (btn.dataset.armed) {
    delete btn.dataset.armed;
    btn.textContent = 'End now';
    btn.classList.remove('danger');
    control(id, 'end');
    return;
  }
  btn.dataset.armed = '1';
  btn.textContent = 'Click again to end';
  btn.classList.add('danger');
  setTimeout(() => {
    if (!btn.dataset.armed) return;
    delete btn.dataset.armed;
    btn.textContent = 'End now';
    btn.classList.remove('danger');
  }, 5000);
}

async function rewarm(id) {
  const msg = $('#table-msg');
  try {
    const st = await api('POST', `/api/v1/admin/items/${id}/warm`);
    msg.className = 'message ok';
    msg.textContent = `Re-warmed sale ${id}: Redis stock ${st.stock_redis}, ${st.consistent ? 'consistent' : 'still drifted'}.`;
  } catch (err) {
    msg.className = 'message error';
    msg.textContent = `Re-warm of sale ${id} failed: ${err.message}`;
  }
}

$('#reconcile').addEventListener('click', async () => {
  const msg = $('#table-msg');
  try {
    const rep = await api('POST', '/api/v1/admin/reconcile');
    const acts = rep.items.flatMap((it) => it.actions.map((a) => `sale ${it.item_id}: ${a}`));
    msg.className = `message ${rep.consistent ? 'ok' : 'error'}`;
    msg.textContent = rep.consistent ? `All ${rep.items.length} open sales consistent.`
      : `Repaired: ${acts.join('; ') || 'nothing to repair yet (orders still settling)'}`;
  } catch (err) {
    msg.className = 'message error';
    msg.textContent = `Reconcile failed: ${err.message}`;
  }
});

// soldOf is a variant's units sold, from the latest snapshot, for the
// variant rows' messages; null when the snapshot does not have it.
function soldOf(variantID) {
  for (const r of (last ? last.rows : [])) {
    const v = (r.variants || []).find((x) => x.variant_id === variantID);
    if (v) return v.sold;
  }
  return null;
}

vrows.init(soldOf);
draws.init();
(async () => { if (await signedIn()) start(); else showSignIn(); })();
