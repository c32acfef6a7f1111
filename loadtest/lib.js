// Shared helpers of the k6 scripts: configuration, shopper tokens, the
// admin API.
import http from 'k6/http';
import { sleep } from 'k6';
import crypto from 'k6/crypto';
import encoding from 'k6/encoding';

export const BASE_URL = __ENV.BASE_URL || 'http://localhost:8080';
export const ADMIN_TOKEN = __ENV.ADMIN_TOKEN || __ENV.SECKILL_ADMIN_TOKEN || '';
export const JWT_SECRET = __ENV.JWT_SECRET || __ENV.SECKILL_JWT_SECRET || '';

export const int = (name, def) => parseInt(__ENV[name] || String(def), 10);

const b64 = (s) => encoding.b64encode(s, 'rawurl');

// shopperToken mints an HS256 shopper JWT the way a shop's own login would
// (README: "Minting tokens"); without JWT_SECRET it signs in through the
// demo login, which is rate limited per IP and so slow for many shoppers.
export function shopperToken(user) {
  if (JWT_SECRET) {
    const head = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const body = b64(JSON.stringify({ sub: user, exp: Math.floor(Date.now() / 1000) + 3 * 3600 }));
    return `${head}.${body}.${crypto.hmac('sha256', JWT_SECRET, `${head}.${body}`, 'base64rawurl')}`;
  }
  for (let i = 0; i < 50; i++) {
    const r = http.post(`${BASE_URL}/api/v1/session`, JSON.stringify({ user_id: user }),
      { headers: { 'Content-Type': 'application/json' }, tags: { kind: 'login' } });
    if (r.status === 200) return r.json('token');
    sleep(Number(r.headers['Retry-After'] || 1));
  }
  throw new Error(`cannot sign in ${user}`);
}

export const admin = (method, path, body) => http.request(method, `${BASE_URL}${path}`,
  body === undefined ? null : JSON.stringify(body),
  { headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' }, tags: { kind: 'admin' } });

export const auth = (token, extra = {}) => ({ headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...extra } });
