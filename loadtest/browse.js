// browse.js: shoppers browsing before and during a sale: the list of sales
// and one sale's page, at a constant arrival rate.
//
//   k6 run loadtest/browse.js
//   env: BASE_URL, RATE (requests/s, 200), DURATION (30s), P99_MS (200)
import http from 'k6/http';
import { check } from 'k6';
import { BASE_URL, int } from './lib.js';

export const options = {
  scenarios: {
    browse: {
      executor: 'constant-arrival-rate', rate: int('RATE', 200), timeUnit: '1s',
      duration: __ENV.DURATION || '30s', preAllocatedVUs: 20, maxVUs: 200,
    },
  },
  thresholds: {
    http_req_failed: ['rate==0'],
    http_req_duration: [`p(99)<${int('P99_MS', 200)}`],
  },
};

export function setup() {
  const items = http.get(`${BASE_URL}/api/v1/items`).json('items') || [];
  if (items.length === 0) throw new Error('no sales to browse: run make run (it seeds two) or create one');
  return { ids: items.map((it) => it.id) };
}

export default function (data) {
  if (Math.random() < 0.5) {
    check(http.get(`${BASE_URL}/api/v1/items`), { 'list 200': (r) => r.status === 200 });
    return;
  }
  const id = data.ids[Math.floor(Math.random() * data.ids.length)];
  check(http.get(`${BASE_URL}/api/v1/items/${id}`), { 'sale 200': (r) => r.status === 200 });
}
