// flash_sale.js: rehearse a flash sale. Creates a sale through the admin API
// (or takes SALE_ID), signs in SHOPPERS shoppers, waits for the opening, and
// storms the purchase endpoint with duplicates and Idempotency-Key retries.
// Shoppers answered 503 busy (with Retry-After) wait and retry with the same
// key, as the shop page does. It fails unless exactly STOCK purchases
// succeed, no request gets a 5xx other than a 503 busy answer with
// Retry-After, p99 stays under P99_MS, and the admin stats say the stores
// agree once the queue is drained.
//
// DROP=1 makes the sale a sneaker drop of ten sizes sharing STOCK, with
// skewed demand, shoppers taking another size when theirs sells out, and
// checks that every size sold exactly its stock and nobody holds two pairs
// (drop.js).
//
//   ADMIN_TOKEN=... JWT_SECRET=... k6 run loadtest/flash_sale.js
//   env: BASE_URL, SHOPPERS (2000), STOCK (200), VUS (50), OPENS_IN (5 s),
//        P99_MS (500), SALE_ID (use an existing sale; STOCK is then read from it),
//        DROP (1: the drop)
import http from 'k6/http';
import { check, sleep } from 'k6';
import { Counter } from 'k6/metrics';
import exec from 'k6/execution';
import { BASE_URL, int, auth, saleForTest, checkAfterSale } from './lib.js';
import { dropForTest, dropVisit, checkDrop } from './drop.js';

const SHOPPERS = int('SHOPPERS', 2000);
const STOCK = int('STOCK', 200);
const VUS = int('VUS', 50);
const OPENS_IN = int('OPENS_IN', 5);
const P99_MS = int('P99_MS', 500);
const DROP = __ENV.DROP === '1';

const reserved = new Counter('purchases_reserved'); // new orders (202, not replayed)
const serverErrors = new Counter('server_errors'); // 5xx other than 503 busy
const outcomes = new Counter('purchase_outcomes');

export const options = {
  setupTimeout: '5m',
  teardownTimeout: '2m',
  scenarios: {
    storm: { executor: 'shared-iterations', vus: VUS, iterations: SHOPPERS * 2, maxDuration: '5m' },
  },
  thresholds: {
    purchases_reserved: [`count==${STOCK}`],
    server_errors: ['count==0'],
    'http_req_duration{kind:purchase}': [`p(99)<${P99_MS}`],
    checks: ['rate==1'],
  },
};

export function setup() {
  if (DROP) return dropForTest({ stock: STOCK, shoppers: SHOPPERS, opensIn: OPENS_IN });
  return saleForTest({ label: 'k6 flash sale', stock: STOCK, shoppers: SHOPPERS, opensIn: OPENS_IN, namePrefix: 'k6' });
}

// One iteration is one shopper's visit; every shopper comes twice. In the
// flash sale the second visit is a duplicate and half retry with the key of
// their first; in the drop it is for a second pair.
export default function (data) {
  const wait = (data.opensAt - Date.now()) / 1000;
  if (wait > 0) sleep(wait);
  const n = exec.scenario.iterationInTest;
  const shopper = n % SHOPPERS;
  const token = data.tokens[shopper];
  const headers = {};
  const pt = http.get(`${BASE_URL}/api/v1/items/${data.saleID}/purchase-token`, { ...auth(token), tags: { kind: 'token' } });
  if (pt.status === 200) headers['X-Purchase-Token'] = pt.json('token');
  if (DROP) {
    const buy = (variant, attempt) => purchase(data.saleID, token, { ...headers, 'Idempotency-Key': `k6-${shopper}-${n}-${attempt}` },
      JSON.stringify({ variant_id: variant, quantity: 1 }));
    dropVisit(data, shopper, Math.floor(n / SHOPPERS), buy, record);
    return;
  }
  headers['Idempotency-Key'] = shopper % 2 === 0 ? `k6-${shopper}` : `k6-${shopper}-${n}`;
  record(purchase(data.saleID, token, headers, '{}'));
}

// purchase sends one purchase, retrying with the same key while answered
// 503 busy with Retry-After, as the shop page does.
function purchase(saleID, token, headers, body) {
  let r;
  for (let attempt = 0; attempt < 5; attempt++) {
    r = http.post(`${BASE_URL}/api/v1/items/${saleID}/purchase`, body, { ...auth(token, headers), tags: { kind: 'purchase' } });
    if (r.status !== 503 || !r.headers['Retry-After']) break;
    sleep(Number(r.headers['Retry-After'])); // busy: a polite client waits as told, then retries
  }
  return r;
}

function record(r) {
  const code = r.status >= 400 ? (r.json('error.code') || String(r.status)) : String(r.status);
  outcomes.add(1, { outcome: r.headers['Idempotent-Replayed'] ? 'replayed' : code });
  if (r.status === 202 && !r.headers['Idempotent-Replayed']) reserved.add(1);
  const busy = r.status === 503 && r.headers['Retry-After'];
  if (r.status >= 500 && !busy) serverErrors.add(1);
  check(r, { 'an answer the API documents': (x) => [202, 403, 409, 410, 429, 503].includes(x.status) });
}

export function teardown(data) {
  if (DROP) {
    checkDrop(data);
    return;
  }
  checkAfterSale(data.saleID, {
    'nothing left in Redis or MySQL': (s) => s.stock_redis === 0 && s.stock_mysql === 0,
  });
}
