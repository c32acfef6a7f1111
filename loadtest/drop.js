// drop.js: the sneaker drop of flash_sale.js (DROP=1). One sale of ten
// sizes, EU 38 to EU 47, sharing STOCK evenly; demand is skewed as in a
// real drop, about 60% of shoppers wanting EU 42 or EU 43; a shopper whose
// size answers 410 sold_out takes the nearest size the answer still lists,
// once. Each shopper comes back for a second pair in the next size, which
// the sale-wide limit of one order must refuse. At the end every size must
// have sold exactly its stock and nobody may hold two orders.
import http from 'k6/http';
import { check, fail } from 'k6';
import { Counter } from 'k6/metrics';
import { BASE_URL, auth, saleForTest, checkAfterSale } from './lib.js';

export const SIZES = ['EU 38', 'EU 39', 'EU 40', 'EU 41', 'EU 42', 'EU 43', 'EU 44', 'EU 45', 'EU 46', 'EU 47'];

const secondSize = new Counter('drop_second_size_reserved'); // bought on the size offered after a sold_out

// byNearness orders the positions 0..n-1 by their distance from `from`,
// the larger size first on a tie, as shoppers between sizes size up.
function byNearness(n, from) {
  return [...Array(n).keys()].sort((a, b) => Math.abs(a - from) - Math.abs(b - from) || b - a);
}

// demandShares falls 2.5-fold per size away from the middle: with ten
// sizes the two middle ones get 60% of first choices, the outer ones 1%
// each (cmd/bench's drop row skews its shoppers the same way).
export function demandShares(n) {
  const mid = (n - 1) / 2;
  const w = [...Array(n).keys()].map((i) => Math.pow(2.5, -Math.abs(i - mid)));
  const sum = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / sum);
}

// preference is shopper i's first-choice position. Stepping by 61 (prime
// to 100) through a hundred slots gives every block of 100 shoppers the
// same mix, so a run's demand does not depend on chance.
function preference(shares, i) {
  const u = (((i * 61) % 100) + 0.5) / 100;
  let acc = 0;
  for (let p = 0; p < shares.length; p++) {
    acc += shares[p];
    if (u < acc) return p;
  }
  return shares.length - 1;
}

// dropForTest creates the drop (or takes SALE_ID, whatever its variants),
// STOCK split evenly over the sizes with the remainder going to the middle
// ones, and gives every shopper a first choice.
export function dropForTest({ stock, shoppers, opensIn }) {
  if (stock < SIZES.length) fail(`a drop of ${SIZES.length} sizes needs STOCK of at least ${SIZES.length}`);
  const extra = byNearness(SIZES.length, (SIZES.length - 1) / 2).slice(0, stock % SIZES.length);
  const variants = SIZES.map((label, i) => ({
    label, stock_total: Math.floor(stock / SIZES.length) + (extra.includes(i) ? 1 : 0),
  }));
  const data = saleForTest({ label: 'k6 drop', stock, shoppers, opensIn, namePrefix: 'k6drop', extra: { variants } });
  const sizes = data.item.variants.map((v) => ({ id: v.id, label: v.label, stock: v.stock_total }));
  const shares = demandShares(sizes.length);
  const prefs = [...Array(shoppers).keys()].map((i) => preference(shares, i));
  const wanted = sizes.map((s, p) => `${s.label} ${prefs.filter((x) => x === p).length}`);
  console.log(`drop ${data.saleID}: stock ${sizes.map((s) => `${s.label} ${s.stock}`).join(', ')}; first choices ${wanted.join(', ')}`);
  return { saleID: data.saleID, opensAt: data.opensAt, tokens: data.tokens, sizes, prefs };
}

// dropVisit is one visit of shopper: the first wants its size, the second
// the next size up (down from the largest). buy(variantID, try) sends one
// purchase and returns the answer; record(answer) counts it.
export function dropVisit(data, shopper, visit, buy, record) {
  const first = data.prefs[shopper];
  let want = first;
  if (visit > 0) want = first + 1 < data.sizes.length ? first + 1 : first - 1;
  const r = buy(data.sizes[want].id, 'first');
  record(r);
  checkAnswer(r, data.sizes[want]);
  if (r.status !== 410) return;
  const left = r.json('error.available_variants');
  check(left, { 'a sold-out size lists the sizes left, not itself': (l) => Array.isArray(l) && !l.includes(data.sizes[want].id) });
  if (!Array.isArray(left) || left.length === 0) return;
  const alt = byNearness(data.sizes.length, want).find((p) => left.includes(data.sizes[p].id));
  if (alt === undefined) return;
  const r2 = buy(data.sizes[alt].id, 'second');
  record(r2);
  checkAnswer(r2, data.sizes[alt]);
  if (r2.status === 202 && !r2.headers['Idempotent-Replayed']) secondSize.add(1);
}

// checkAnswer checks what a drop adds to a purchase answer: the size of a
// reservation, and the order a second pair in any size is refused for.
function checkAnswer(r, size) {
  if (r.status === 202) check(r, { 'a reservation is for the size asked': (x) => x.json('variant_id') === size.id });
  if (r.status === 409) {
    check(r, { 'a second pair is refused with the order held': (x) => x.json('error.code') === 'already_purchased' && Boolean(x.json('error.order_id')) });
  }
}

// checkDrop runs after the drop: the sale's invariants, every size sold
// out to the unit in both stores, then each shopper's own orders read back:
// nobody holds two, and the orders per size add up to its stock.
export function checkDrop(data) {
  const st = checkAfterSale(data.saleID, {
    'nothing left in Redis or MySQL': (s) => s.stock_redis === 0 && s.stock_mysql === 0,
    'every size sold exactly its stock': (s) => Array.isArray(s.variants) && s.variants.length === data.sizes.length &&
      s.variants.every((v) => v.sold === v.stock_total && v.stock_redis === 0 && v.consistent === true),
  });
  const held = ordersHeld(data);
  const perSize = data.sizes.map((s) => held.orders.filter((o) => o.variant_id === s.id).length);
  const ok = check(held, {
    "every shopper's orders read": (h) => h.unread === 0,
    'nobody holds two orders in the drop': (h) => Math.max(0, ...h.counts) <= 1,
    'one buyer per unit sold': (h) => h.counts.filter((c) => c > 0).length === st.sold,
    'orders per size equal its stock': () => perSize.every((n, p) => n === data.sizes[p].stock),
    'each order names its size': (h) => h.orders.every((o) => data.sizes.some((s) => s.id === o.variant_id && s.label === o.variant_label)),
  });
  console.log(`drop ${data.saleID}: ${held.orders.length} orders held by ${held.counts.filter((c) => c > 0).length} shoppers; per size ${data.sizes.map((s, p) => `${s.label} ${perSize[p]}/${s.stock}`).join(', ')}`);
  if (!ok) fail(`the drop's orders break its limits: ${JSON.stringify(held.counts.filter((c) => c > 1))}`);
}

// ordersHeld reads every shopper's orders, fifty shoppers at a time, and
// keeps the ones in this drop that are not cancelled.
function ordersHeld(data) {
  const out = { counts: [], orders: [], unread: 0 };
  for (let i = 0; i < data.tokens.length; i += 50) {
    const rs = http.batch(data.tokens.slice(i, i + 50).map((t) =>
      ['GET', `${BASE_URL}/api/v1/orders`, null, { ...auth(t), tags: { kind: 'orders' } }]));
    for (const r of rs) {
      if (r.status !== 200) {
        out.unread++;
        continue;
      }
      const mine = (r.json('orders') || []).filter((o) => String(o.item_id) === data.saleID && o.status !== 'cancelled');
      out.counts.push(mine.length);
      out.orders.push(...mine);
    }
  }
  return out;
}
