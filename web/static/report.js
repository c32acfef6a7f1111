// A sale's post-sale report: the sell-through curve (uPlot, as on the
// dashboard), tiles and tables of the other figures, and the orders as CSV.
// It uses the dashboard's admin session; without one it points there.
import uPlot from './vendor/uplot/uPlot.esm.js';
import { $, el, api, APIError } from './api.js';

const id = Number(location.pathname.split('/')[3]);
let chart = null;

const num = (n) => Number(n).toLocaleString('en-US');
const when = (iso) => new Date(iso).toLocaleString();
const label = { confirmed: 'Confirmed (unpaid)', paid: 'Paid', cancelled: 'Cancelled', shopper: 'By the shopper', timeout: 'Payment timeout' };

function duration(ms) {
  if (ms === null || ms === undefined) return 'Never sold out';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60000);
  return m < 60 ? `${m} min ${Math.round((ms % 60000) / 1000)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

function rows(tbody, pairs) {
  tbody.replaceChildren(...pairs.map(([k, v, key]) => el('tr', { 'data-row': key || k },
    el('th', { textContent: k }), el('td', { class: 'num', textContent: num(v) }))));
}

function paint(r) {
  document.title = `seckill · report · ${r.name}`;
  $('#report-title').textContent = `Report: ${r.name}`;
  $('#report-window').textContent = `${when(r.starts_at)} – ${when(r.ends_at)}`;
  $('#report-status').textContent = r.status.replace('_', ' ');
  $('#csv').href = `/api/v1/admin/items/${r.item_id}/orders.csv`;
  const fig = (k, v) => { $(`[data-figure="${k}"]`).textContent = v; };
  fig('sold', `${num(r.sold)} / ${num(r.stock_total)}`);
  fig('time_to_sell_out', duration(r.time_to_sell_out_ms));
  fig('shed', num(r.shed));
  fig('rate_limited', num(r.rate_limited));
  rows($('#orders-table'), Object.entries(r.orders_by_status).map(([k, v]) => [label[k] || k, v, k]));
  rows($('#cancels-table'), Object.entries(r.cancellations).map(([k, v]) => [label[k] || k, v, k]));
  $('#no-room').classList.toggle('hidden', r.room !== null);
  rows($('#room-table'), r.room ? [['Joined', r.room.joins, 'joins'], ['Admitted', r.room.admissions, 'admissions'],
    ['Bought', r.room.purchases, 'purchases'], ['Admitted, never bought', r.room.abandoned, 'abandoned']] : []);
  draw(r);
}

function draw(r) {
  const box = $('#curve');
  const xs = r.sell_through.map((p) => Date.parse(p.t) / 1000);
  const sold = r.sell_through.map((p) => p.sold);
  box.dataset.points = String(xs.length);
  const opts = {
    width: Math.max(280, box.clientWidth), height: 280,
    scales: { x: { time: true }, y: { range: (u, lo, hi) => [0, Math.ceil(Math.max(hi, r.stock_total, 1) * 1.08)] } },
    // Steps, not slopes: units stay held until the next change.
    series: [{}, { label: 'Units sold', stroke: '#c8102e', width: 2, fill: 'rgba(200,16,46,0.08)',
      paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } }],
    axes: [{}, { label: 'units' }],
  };
  if (chart) chart.destroy();
  chart = new uPlot(opts, [xs, sold], box);
}

window.addEventListener('resize', () => {
  if (chart) chart.setSize({ width: Math.max(280, $('#curve').clientWidth), height: 280 });
});

async function load() {
  const msg = $('#report-msg');
  try {
    const r = await api('GET', `/api/v1/admin/items/${id}/report`, undefined, {}, 'no-store');
    msg.textContent = '';
    msg.classList.add('hidden');
    $('#report').classList.remove('hidden');
    paint(r);
  } catch (err) {
    msg.classList.add('error');
    if (err instanceof APIError && err.status === 401) {
      msg.replaceChildren('Sign in on the ', el('a', { href: '/admin', textContent: 'dashboard' }), ' to see this report.');
    } else if (err instanceof APIError && err.status === 404) {
      msg.textContent = 'There is no such sale.';
    } else {
      msg.textContent = 'Cannot load the report right now. Reload to try again.';
    }
  }
}

load();
