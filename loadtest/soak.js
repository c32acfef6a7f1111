// soak.js: an hour of moderate mixed traffic (browsing, purchases on a large
// sale, order checks, now and then a cancel), to find leaks and drift. SHORT=1
// runs it for 30 s. It fails on any 5xx or if the stores disagree at the end.
//
//   ADMIN_TOKEN=... JWT_SECRET=... k6 run loadtest/soak.js
//   env: BASE_URL, RATE (iterations/s, 50), DURATION (1h), SHORT
import http from 'k6/http';
import { check, sleep, fail } from 'k6';
import { BASE_URL, ADMIN_TOKEN, int, shopperToken, admin, auth } from './lib.js';

const SHORT = __ENV.SHORT === '1';

export const options = {
  setupTimeout: '2m',
  scenarios: {
    mixed: {
      executor: 'constant-arrival-rate', rate: int('RATE', 50), timeUnit: '1s',
      duration: SHORT ? '30s' : (__ENV.DURATION || '1h'), preAllocatedVUs: 20, maxVUs: 100,
    },
  },
  thresholds: { 'http_req_failed{kind:api}': ['rate<0.001'], checks: ['rate>0.999'] },
};

export function setup() {
  if (!ADMIN_TOKEN) fail('set ADMIN_TOKEN');
  const now = Date.now();
  const r = admin('POST', '/api/v1/admin/items', {
    name: `k6 soak ${new Date(now).toISOString()}`, description: 'soak', price_cents: 100,
    stock_total: 1000000, per_user_limit: 1,
    starts_at: new Date(now - 60e3).toISOString(), ends_at: new Date(now + 2 * 3600e3).toISOString(),
  });
  if (r.status !== 201) fail(`create sale: ${r.status} ${r.body}`);
  return { saleID: r.json('id') };
}

export default function (data) {
  const user = `soak-${__VU}-${__ITER}`;
  const token = shopperToken(user);
  const tags = { kind: 'api' };
  check(http.get(`${BASE_URL}/api/v1/items/${data.saleID}`, { tags }), { 'sale 200': (r) => r.status === 200 });
  if (Math.random() < 0.5) return;
  const pt = http.get(`${BASE_URL}/api/v1/items/${data.saleID}/purchase-token`, { ...auth(token), tags });
  const headers = pt.status === 200 ? { 'X-Purchase-Token': pt.json('token') } : {};
  const r = http.post(`${BASE_URL}/api/v1/items/${data.saleID}/purchase`, '{}', { ...auth(token, headers), tags });
  check(r, { 'purchase 202': (x) => x.status === 202 });
  if (r.status === 202 && Math.random() < 0.1) {
    sleep(1); // the order is confirmed by now, usually
    const c = http.post(`${BASE_URL}/api/v1/orders/${r.json('order_id')}/cancel`, null, { ...auth(token), tags: { kind: 'cancel' } });
    check(c, { 'cancel answered': (x) => [200, 409].includes(x.status) });
  }
}

export function teardown(data) {
  let st = null;
  for (let i = 0; i < 60; i++) {
    st = admin('GET', `/api/v1/admin/items/${data.saleID}/stats`).json();
    if (st.orders_pending === 0) break;
    sleep(0.5);
  }
  console.log(`soak sale ${data.saleID}: ${JSON.stringify(st)}`);
  if (!check(st, { 'stores agree after the soak': (s) => s.consistent === true })) fail('stores drifted');
}
