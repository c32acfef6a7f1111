// The dashboard's sell-through chart for the sale in focus: orders per
// second and stock left, plus, for a sale of several variants, one
// stock-left line per variant. It is built from the snapshots the table
// already receives; nothing is fetched for it.
import uPlot from './vendor/uplot/uPlot.esm.js';

const history = new Map(); // item id -> [{t, sold, left, vleft: {variant id: left}}]
const variantsOf = new Map(); // item id -> [{id, label}] when the sale has several
// Distinct from the two sale-wide lines and from each other on white.
const palette = ['#137a3a', '#a05a00', '#7b2cbf', '#0b7285', '#c2255c', '#5c940d', '#364fc7', '#862e9c'];

let chart = null;
let shape = ''; // what the chart's series were built for
let focus = null;

const leftOf = (f) => f.stock_redis ?? f.stock_mysql;

// record keeps one sale's point from a snapshot taken at t (seconds).
export function record(r, t) {
  const h = history.get(r.item_id) || [];
  if (h.length && h[h.length - 1].t === t) return;
  const vs = r.variants || [];
  h.push({ t, sold: r.sold, left: leftOf(r), vleft: Object.fromEntries(vs.map((v) => [v.variant_id, leftOf(v)])) });
  if (h.length > 600) h.shift();
  history.set(r.item_id, h);
  variantsOf.set(r.item_id, vs.length > 1 ? vs.map((v) => ({ id: v.variant_id, label: v.label })) : []);
}

export function setFocus(id) {
  focus = id;
}

function data() {
  const h = history.get(focus) || [];
  const vs = variantsOf.get(focus) || [];
  const xs = [], rate = [], left = [];
  const per = vs.map(() => []);
  h.forEach((p, i) => {
    xs.push(p.t);
    left.push(p.left);
    rate.push(i === 0 ? 0 : Math.max(0, (p.sold - h[i - 1].sold) / Math.max(1e-3, p.t - h[i - 1].t)));
    vs.forEach((v, j) => per[j].push(p.vleft[v.id] ?? null)); // a variant added later has no past
  });
  return [xs, rate, left, ...per];
}

function options(box, vs) {
  return {
    width: Math.max(280, box.clientWidth),
    height: 260,
    scales: { x: { time: true } },
    series: [{}, { label: 'Orders/s', stroke: '#c8102e', width: 2, scale: 'rate' },
      { label: vs.length ? 'Stock left (all)' : 'Stock left', stroke: '#1f4fd1', width: 2, scale: 'stock' },
      ...vs.map((v, i) => ({ label: v.label, stroke: palette[i % palette.length], width: 1.5, dash: [6, 3], scale: 'stock' }))],
    axes: [{}, { scale: 'rate', label: 'orders / s' }, { scale: 'stock', side: 1, label: 'stock left', grid: { show: false } }],
  };
}

// draw repaints the chart in box, rebuilding it when the sale in focus or
// its variants changed (uPlot's series are fixed once built).
export function draw(box) {
  if (focus === null) return;
  const vs = variantsOf.get(focus) || [];
  const d = data();
  box.dataset.points = String(d[0].length);
  box.dataset.variants = String(vs.length);
  const want = `${focus}:${vs.map((v) => `${v.id}=${v.label}`).join(',')}`;
  if (chart && shape === want) {
    chart.setData(d);
    return;
  }
  if (chart) chart.destroy();
  shape = want;
  chart = new uPlot(options(box, vs), d, box);
}

export function resize(box) {
  if (chart) chart.setSize({ width: Math.max(280, box.clientWidth), height: 260 });
}
