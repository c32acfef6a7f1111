// The admin dashboard: sign-in (the token becomes an HttpOnly session
// cookie), a live table pushed over Server-Sent Events, a sell-through chart
// for the sale in focus, and a form to create and edit sales.
import uPlot from './vendor/uplot/uPlot.esm.js';
import { $, el, api, APIError, price } from './api.js';

let source = null;
let focus = null; // item id of the charted sale
let editing = null; // item id being edited, null when creating
const history = new Map(); // item id -> [{t, sold, left}]
let chart = null;

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

function onSnapshot(snap) {
  const t = Date.parse(snap.server_time) / 1000;
  $('#cost').textContent = `Last snapshot took ${snap.compute_ms.toFixed(1)} ms on the server.`;
  const body = $('#rows');
  const ids = snap.rows.map((r) => String(r.item_id));
  if ([...body.children].map((tr) => tr.dataset.item).join() !== ids.join()) {
    body.replaceChildren(...snap.rows.map(rowElement));
  }
  for (const r of snap.rows) {
    paintRow(r);
    record(r, t);
  }
  drawChart();
}

const cells = ['name', 'status', 'stock_total', 'stock_mysql', 'stock_redis', 'orders_pending', 'orders_confirmed', 'sold', 'invariants'];

function rowElement(r) {
  const tr = el('tr', { 'data-item': String(r.item_id) });
  for (const c of cells) {
    const numeric = c.startsWith('stock') || c.startsWith('orders') || c === 'sold';
    tr.append(el('td', { class: numeric ? 'num' : '', 'data-cell': c }));
  }
  const chartBtn = el('button', { type: 'button', textContent: 'Chart' });
  chartBtn.addEventListener('click', () => setFocus(r.item_id, r.name));
  const editBtn = el('button', { type: 'button', textContent: 'Edit' });
  editBtn.addEventListener('click', () => edit(r.item_id));
  const warmBtn = el('button', { type: 'button', textContent: 'Re-warm' });
  warmBtn.addEventListener('click', () => rewarm(r.item_id));
  tr.append(el('td', { class: 'inline' }, chartBtn, editBtn, warmBtn));
  return tr;
}

function paintRow(r) {
  const tr = document.querySelector(`tr[data-item="${r.item_id}"]`);
  const set = (c, v) => { tr.querySelector(`[data-cell="${c}"]`).textContent = v; };
  set('name', r.name);
  tr.querySelector('[data-cell="status"]').replaceChildren(el('span', { class: `badge ${r.status}`, textContent: r.status.replace('_', ' ') }));
  for (const c of ['stock_total', 'stock_mysql', 'orders_pending', 'orders_confirmed', 'sold']) set(c, String(r[c]));
  set('stock_redis', r.stock_redis === null ? 'not warm' : String(r.stock_redis));
  const inv = tr.querySelector('[data-cell="invariants"]');
  const badge = el('span', { class: `badge ${r.consistent ? 'consistent' : 'drifted'}`, textContent: r.consistent ? 'consistent' : 'drifted' });
  inv.replaceChildren(badge, ...r.problems.map((p) => el('span', { class: 'problems', textContent: p })));
  tr.classList.toggle('focused', r.item_id === focus);
}

// ---- chart ----------------------------------------------------------------
function record(r, t) {
  const h = history.get(r.item_id) || [];
  if (h.length && h[h.length - 1].t === t) return;
  h.push({ t, sold: r.sold, left: r.stock_redis ?? r.stock_mysql });
  if (h.length > 600) h.shift();
  history.set(r.item_id, h);
}

function setFocus(id, name) {
  focus = id;
  $('#chart-title').textContent = `Sell-through: ${name}`;
  $('#chart-hint').classList.add('hidden');
  document.querySelectorAll('#rows tr').forEach((tr) => tr.classList.toggle('focused', tr.dataset.item === String(id)));
  drawChart();
}

function chartData() {
  const h = history.get(focus) || [];
  const xs = [], rate = [], left = [];
  h.forEach((p, i) => {
    xs.push(p.t);
    left.push(p.left);
    rate.push(i === 0 ? 0 : Math.max(0, (p.sold - h[i - 1].sold) / Math.max(1e-3, p.t - h[i - 1].t)));
  });
  return [xs, rate, left];
}

function drawChart() {
  if (focus === null) return;
  const box = $('#chart');
  const data = chartData();
  box.dataset.points = String(data[0].length);
  if (!chart) {
    chart = new uPlot({
      width: Math.max(280, box.clientWidth),
      height: 260,
      scales: { x: { time: true } },
      series: [{}, { label: 'Orders/s', stroke: '#c8102e', width: 2, scale: 'rate' },
        { label: 'Stock left', stroke: '#1f4fd1', width: 2, scale: 'stock' }],
      axes: [{}, { scale: 'rate', label: 'orders / s' }, { scale: 'stock', side: 1, label: 'stock left', grid: { show: false } }],
    }, data, box);
    window.addEventListener('resize', () => chart.setSize({ width: Math.max(280, box.clientWidth), height: 260 }));
    return;
  }
  chart.setData(data);
}

// ---- create / edit --------------------------------------------------------
const pad = (n) => String(n).padStart(2, '0');
// field reads a form control by name (form.name would be the form's own name).
const field = (n) => $('#sale-form').elements.namedItem(n);
const localInput = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;

function resetForm() {
  editing = null;
  $('#sale-form').reset();
  const opens = new Date(Math.ceil(Date.now() / 60000) * 60000 + 5 * 60000);
  field('starts_at').value = localInput(opens);
  field('ends_at').value = localInput(new Date(opens.getTime() + 3600000));
  $('#form-title').textContent = 'New sale';
  $('#sale-submit').textContent = 'Create sale';
  $('#sale-cancel').classList.add('hidden');
  clearErrors();
}

function clearErrors() {
  document.querySelectorAll('.field-error').forEach((e) => { e.textContent = ''; });
}

// formBody reads the form; values it cannot read are sent as they are, so
// the API's validation names the field.
function formBody() {
  const num = (v) => (v.trim() === '' || Number.isNaN(Number(v)) ? v : Number(v));
  const iso = (v) => (v ? new Date(v).toISOString() : undefined);
  const cents = field('price').value.trim() === '' ? undefined
    : (Number.isNaN(Number(field('price').value)) ? field('price').value : Math.round(Number(field('price').value) * 100));
  return {
    name: field('name').value.trim(), description: field('description').value, price_cents: cents,
    stock_total: num(field('stock_total').value), per_user_limit: num(field('per_user_limit').value),
    room_rate: num(field('room_rate').value),
    starts_at: iso(field('starts_at').value), ends_at: iso(field('ends_at').value),
  };
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
    msg.className = 'message ok';
    msg.textContent = `${editing === null ? 'Created' : 'Saved'} "${it.name}" (${price(it.price_cents)}, ${it.stock_total} units).`;
    resetForm();
  } catch (err) {
    msg.className = 'message error';
    msg.textContent = err.message || 'Could not save the sale.';
    const box = document.querySelector(`.field-error[data-for="${err.field}"]`);
    if (box) box.textContent = err.message;
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
  field('per_user_limit').value = it.per_user_limit;
  field('room_rate').value = it.room_rate;
  field('starts_at').value = localInput(new Date(it.starts_at));
  field('ends_at').value = localInput(new Date(it.ends_at));
  $('#form-title').textContent = `Edit: ${it.name}`;
  $('#sale-submit').textContent = 'Save changes';
  $('#sale-cancel').classList.remove('hidden');
  clearErrors();
  field('name').focus();
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
    const rep = await api('GET', '/api/v1/admin/reconcile');
    const acts = rep.items.flatMap((it) => it.actions.map((a) => `sale ${it.item_id}: ${a}`));
    msg.className = `message ${rep.consistent ? 'ok' : 'error'}`;
    msg.textContent = rep.consistent ? `All ${rep.items.length} open sales consistent.`
      : `Repaired: ${acts.join('; ') || 'nothing to repair yet (orders still settling)'}`;
  } catch (err) {
    msg.className = 'message error';
    msg.textContent = `Reconcile failed: ${err.message}`;
  }
});

(async () => { if (await signedIn()) start(); else showSignIn(); })();
