// The dashboard's audit panel: the latest admin changes, newest first, with
// who made each (a fingerprint of the credential), the sale, and what
// changed as before → after. It reloads when a live snapshot says the log
// grew (audit_head, on any server), or every few seconds if snapshots stop
// coming; "Older" pages back by cursor, "Newest" returns.
import { $, el, api, price } from './api.js';

const PAGE = 20;
const POLL_MS = 5000;

let cursors = [null]; // the cursor of each page shown so far; the last is this page's
let next = null; // next_cursor of the page shown
let head = -1; // the audit_head the newest page was loaded at
let lastSnap = 0; // when the last snapshot came (ms)
let names = new Map(); // item id -> sale name, from the snapshots
let loading = null;

const onNewest = () => cursors.length === 1;
const visible = () => !$('#dashboard').classList.contains('hidden');

async function load() {
  const cursor = cursors[cursors.length - 1];
  const q = `?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  try {
    const page = await api('GET', `/api/v1/admin/audit${q}`, undefined, {}, 'no-store');
    next = page.next_cursor;
    render(page.entries);
    $('#audit-status').textContent = '';
  } catch (err) {
    $('#audit-status').textContent = `Cannot load the audit log: ${err.message}`;
  }
  $('#audit-older').disabled = !next;
  $('#audit-newest').classList.toggle('hidden', onNewest());
}

// refresh reloads, one load at a time.
function refresh() {
  if (!loading) loading = load().finally(() => { loading = null; });
  return loading;
}

function render(entries) {
  const body = $('#audit-rows');
  if (entries.length === 0) {
    body.replaceChildren(el('tr', {}, el('td', { colSpan: 5, class: 'muted', textContent: 'Nothing recorded yet.' })));
    return;
  }
  body.replaceChildren(...entries.map(row));
}

function row(e) {
  const at = new Date(e.at);
  const sale = e.item_id === null ? '—' : (names.has(e.item_id) ? `${names.get(e.item_id)} (#${e.item_id})` : `#${e.item_id}`);
  return el('tr', { 'data-audit': String(e.id), 'data-action': e.action },
    el('td', { class: 'a-time', title: e.at, textContent: when(at) }),
    el('td', { class: 'a-who' }, el('code', { textContent: e.actor, title: e.request_id ? `request ${e.request_id}` : '' })),
    el('td', { class: 'a-action' }, el('span', { class: 'action-tag', textContent: e.action.replace(/_/g, ' ') })),
    el('td', { class: 'a-sale', textContent: sale }),
    el('td', { class: 'a-change', title: `before: ${JSON.stringify(e.before)}\nafter: ${JSON.stringify(e.after)}` },
      ...delivery(e.after), ...change(e.before, e.after)));
}

// delivery names the webhook delivery a webhook_resend was about, before
// what changed of it.
const delivery = (after) => (after && after.event_id
  ? [item(el('strong', { textContent: after.type }), ' ', el('code', { textContent: after.event_id }))] : []);

const pad = (n) => String(n).padStart(2, '0');
function when(d) {
  const t = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return d.toDateString() === new Date().toDateString() ? t : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${t}`;
}

// show writes one value compactly: money as money, times as local times,
// Redis levels as "stock n (id: n, …)".
function show(k, v) {
  if (v === null || v === undefined) return '–';
  if (k.endsWith('price_cents') && typeof v === 'number') return price(v);
  if (k.endsWith('_at') && typeof v === 'string') return when(new Date(v));
  if (k === 'variants' && Array.isArray(v)) return v.map((x) => `${x.label} ×${x.stock_total}`).join(', ');
  if (k === 'variants' && typeof v === 'object') return `(${Object.entries(v).map(([id, n]) => `#${id}: ${n}`).join(', ')})`;
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 39)}…` : v}"`;
  return String(v);
}

// label names a field; stock and variants of Redis levels (warm, repair)
// read as what they are.
const label = (k) => ({ stock: 'Redis stock', variants: 'variants' })[k] || k.replace(/_cents$/, '').replace(/_/g, ' ');
const item = (...parts) => el('span', { class: 'a-item' }, ...parts);
const arrow = () => el('span', { class: 'arrow', textContent: ' → ' });

// change lists what changed: each field before → after; what a create or
// add brought; what a delete took away; a repair's actions.
function change(before, after) {
  const obj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!obj(before) && obj(after)) {
    const keys = ['name', 'label', 'price_cents', 'stock_total', 'stock', 'variants'].filter((k) => k in after);
    return [item(el('strong', { textContent: 'new ' }), keys.map((k) => `${label(k)} ${show(k, after[k])}`).join(', ')), ...actions(after)];
  }
  if (obj(before) && !obj(after)) {
    const keys = ['label', 'name', 'stock_total'].filter((k) => k in before);
    return [item(el('strong', { textContent: 'removed ' }), keys.map((k) => `${label(k)} ${show(k, before[k])}`).join(', '))];
  }
  if (!obj(before) && !obj(after)) return [item('—')];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => k !== 'actions');
  const diff = keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  const parts = diff.map((k) => item(`${label(k)} `, el('del', { textContent: show(k, before[k]) }), arrow(),
    el('ins', { textContent: show(k, after[k]) })));
  if (parts.length === 0) parts.push(item(el('span', { class: 'muted', textContent: `${keys.map((k) => `${label(k)} ${show(k, after[k])}`).join(' ')}, unchanged` })));
  return [...parts, ...actions(after)];
}

const actions = (after) => (Array.isArray(after.actions) ? after.actions.map((a) => item(el('span', { class: 'muted', textContent: a }))) : []);

$('#audit-older').addEventListener('click', () => {
  if (!next) return;
  cursors.push(next);
  refresh();
});
$('#audit-newest').addEventListener('click', () => {
  cursors = [null];
  refresh();
});

// admin.js passes on each live snapshot.
window.addEventListener('admin:snapshot', (ev) => {
  const snap = ev.detail;
  lastSnap = Date.now();
  names = new Map(snap.rows.map((r) => [r.item_id, r.name]));
  if (snap.audit_head !== head) {
    head = snap.audit_head;
    if (onNewest()) refresh();
    else $('#audit-status').textContent = 'Newer entries were recorded: see "Newest".';
  }
});

setInterval(() => {
  if (visible() && onNewest() && Date.now() - lastSnap > POLL_MS) refresh();
}, POLL_MS);
