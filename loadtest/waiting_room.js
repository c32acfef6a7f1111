// waiting_room.js: rehearse a sale behind a waiting room. Creates a sale with
// room_rate RATE (or takes SALE_ID), and sends SHOPPERS shoppers at it: half
// join before the opening, the rest over the first seconds after it. Each
// shopper polls its place as the sale page does (less often the further back
// it is), buys with its admission token once admitted, and stops when told
// sold out; answers with Retry-After (429, 503) are waited out as told. It
// fails unless exactly STOCK purchases succeed, every shopper ends admitted
// or told sold out, no request gets a 5xx other than a 503 with Retry-After,
// and the stores agree once the queue is drained. A join pays with a proof
// of work as the page does (lib.js withProof): every shopper comes from one
// address, so against a server at the default difficulty each pays what a
// farm of bots would; rehearse the room itself against a server run with
// SECKILL_POW_DIFFICULTY=4, as scripts/k6-ci.sh does, or SECKILL_POW=off.
//
//   ADMIN_TOKEN=... JWT_SECRET=... k6 run loadtest/waiting_room.js
//   env: BASE_URL, SHOPPERS (1000), STOCK (100), RATE (50 per second),
//        OPENS_IN (5 s), SALE_ID (use an existing sale with a room)
import http from 'k6/http';
import { check, sleep } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import exec from 'k6/execution';
import { BASE_URL, int, auth, saleForTest, checkAfterSale, withProof } from './lib.js';

const SHOPPERS = int('SHOPPERS', 1000);
const STOCK = int('STOCK', 100);
const RATE = int('RATE', 50);
const OPENS_IN = int('OPENS_IN', 5);

const reserved = new Counter('purchases_reserved');
const serverErrors = new Counter('server_errors');
const outcomes = new Counter('room_outcomes');
const waited = new Trend('room_wait_ms', true); // from joining to admission

export const options = {
  setupTimeout: '5m',
  teardownTimeout: '2m',
  scenarios: {
    // One VU per shopper: a shopper spends most of its time waiting in line.
    shoppers: { executor: 'per-vu-iterations', vus: SHOPPERS, iterations: 1, maxDuration: '5m' },
  },
  thresholds: {
    purchases_reserved: [`count==${STOCK}`],
    server_errors: ['count==0'],
    checks: ['rate==1'],
  },
};

export function setup() {
  return saleForTest({ label: 'k6 waiting room', stock: STOCK, shoppers: SHOPPERS, opensIn: OPENS_IN, namePrefix: 'k6-room', extra: { room_rate: RATE } });
}

const room = (data, method, token, proof) => http.request(method, `${BASE_URL}/api/v1/items/${data.saleID}/room`, null,
  { ...auth(token, proof ? { 'X-Proof-Of-Work': proof } : {}), tags: { kind: method === 'POST' ? 'join' : 'look' } });
const join = (data, token) => withProof(data.saleID, token, (proof) => room(data, 'POST', token, proof));

export default function (data) {
  const n = exec.vu.idInTest - 1;
  const token = data.tokens[n];
  // Half arrive before the opening, the rest spread over OPENS_IN seconds after it.
  const arrive = n % 2 === 0 ? data.opensAt - 1000 * Math.random() * OPENS_IN * 0.8 : data.opensAt + 1000 * Math.random() * OPENS_IN;
  if (arrive > Date.now()) sleep((arrive - Date.now()) / 1000);
  const joinedAt = Date.now();
  let joined = false;
  let r = join(data, token);
  for (let polls = 0; polls < 600; polls++) {
    if (r.headers['Retry-After'] && (r.status === 429 || r.status === 503)) {
      sleep(Number(r.headers['Retry-After'])); // throttled or busy: wait as told
      r = joined ? room(data, 'GET', token) : join(data, token);
      continue;
    }
    joined = true;
    if (r.status >= 500) serverErrors.add(1);
    if (!check(r, { 'room answers 200': (x) => x.status === 200 })) return;
    const st = r.json();
    if (st.state === 'admitted') {
      waited.add(Date.now() - joinedAt);
      return buy(data, token, st.token);
    }
    if (st.state !== 'waiting') {
      outcomes.add(1, { outcome: st.state });
      check(st, { 'a shopper not admitted is told sold out': (x) => x.state === 'sold_out' });
      return;
    }
    // Poll as the page would: soon when near the front, rarely when far back.
    const ahead = st.ahead === null ? 0 : st.ahead;
    const wait = st.opened ? Math.min(Math.max(ahead / (4 * RATE), 0.5), 5) : Math.max((data.opensAt - Date.now()) / 1000, 0.2);
    sleep(wait + Math.random() * 0.5);
    r = room(data, 'GET', token);
  }
}

function buy(data, token, admission) {
  const r = http.post(`${BASE_URL}/api/v1/items/${data.saleID}/purchase`, '{}',
    { ...auth(token, { 'X-Purchase-Token': admission, 'Idempotency-Key': `k6-room-${exec.vu.idInTest}` }), tags: { kind: 'purchase' } });
  if (r.status >= 500) serverErrors.add(1);
  outcomes.add(1, { outcome: r.status === 202 ? 'bought' : (r.json('error.code') || String(r.status)) });
  if (r.status === 202) reserved.add(1);
  check(r, { 'an admitted purchase is 202 or sold out': (x) => x.status === 202 || x.status === 410 });
}

export function teardown(data) {
  checkAfterSale(data.saleID);
}
