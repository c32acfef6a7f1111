// Shared helpers of the k6 scripts: configuration, shopper tokens, the
// admin API.
import http from 'k6/http';
import { check, sleep, fail } from 'k6';
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

// zeroBits counts the leading zero bits of a hex digest.
function zeroBits(hex) {
  let n = 0;
  for (const c of hex) {
    const v = parseInt(c, 16);
    if (v !== 0) return n + Math.clz32(v) - 28;
    n += 4;
  }
  return n;
}

// solveChallenge finds the smallest decimal x such that SHA-256(challenge
// ":" x) starts with difficulty zero bits, as the sale page's worker does,
// and returns the X-Proof-Of-Work value "<challenge>:<x>". k6 pays it like
// any client: every shopper here comes from one address, so the server
// prices them as the farm they are (README, "A price on bots").
export function solveChallenge(challenge, difficulty) {
  for (let x = 0; ; x++) {
    if (zeroBits(crypto.sha256(`${challenge}:${x}`, 'hex')) >= difficulty) return `${challenge}:${x}`;
  }
}

// withProof sends a request that needs a proof of work for sale saleID as
// the sale page does: a challenge, solved, then send(proof); a refused proof
// is solved again from the refusal's fresh challenge, once. An answer that
// is not a challenge (a 429, a 503) is returned for the caller to wait out.
export function withProof(saleID, token, send) {
  const c = http.post(`${BASE_URL}/api/v1/items/${saleID}/challenge`, null, { ...auth(token), tags: { kind: 'challenge' } });
  if (c.status !== 200) return c;
  let r = send(solveChallenge(c.json('challenge'), c.json('difficulty')));
  if (r.status === 403 && r.json('error.code') === 'proof_of_work_required') {
    r = send(solveChallenge(r.json('error.challenge'), r.json('error.difficulty')));
  }
  return r;
}

export const admin = (method, path, body) => http.request(method, `${BASE_URL}${path}`,
  body === undefined ? null : JSON.stringify(body),
  { headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' }, tags: { kind: 'admin' } });

export const auth = (token, extra = {}) => ({ headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...extra } });

// saleForTest creates a sale of stock units, one per shopper, opening in
// opensIn seconds (extra fields are added to it; with extra.variants the
// stock is theirs and stock is not sent), or takes SALE_ID; it mints a token
// for each of shoppers shoppers named namePrefix-<sale>-<n>. It returns the
// sale as the API shows it too (item), variants included.
export function saleForTest({ label, stock, shoppers, opensIn, namePrefix, extra = {} }) {
  if (!ADMIN_TOKEN) fail('set ADMIN_TOKEN (make run prints it; scripts/dev-env.sh holds it)');
  let saleID = __ENV.SALE_ID;
  let opensAt = Date.now() + opensIn * 1000;
  let item;
  if (!saleID) {
    const r = admin('POST', '/api/v1/admin/items', {
      name: `${label} ${new Date().toISOString()}`, description: 'load test', price_cents: 100,
      ...(extra.variants ? {} : { stock_total: stock }), per_user_limit: 1, ...extra,
      starts_at: new Date(opensAt).toISOString(), ends_at: new Date(opensAt + 3600e3).toISOString(),
    });
    if (r.status !== 201) fail(`create sale: ${r.status} ${r.body}`);
    item = r.json();
    saleID = String(item.id);
  } else {
    item = http.get(`${BASE_URL}/api/v1/items/${saleID}`).json();
    opensAt = Date.parse(item.starts_at);
  }
  const tokens = [];
  for (let i = 0; i < shoppers; i++) tokens.push(shopperToken(`${namePrefix}-${saleID}-${i}`));
  return { saleID, opensAt, tokens, item };
}

// checkAfterSale waits up to 30 s for the sale's queue to drain, then checks
// that the stores agree and the whole stock sold, plus any extra checks; it
// fails the run if any does not hold, and returns the stats it checked.
export function checkAfterSale(saleID, extra = {}) {
  let st = null;
  for (let i = 0; i < 60; i++) {
    st = admin('GET', `/api/v1/admin/items/${saleID}/stats`).json();
    if (st.orders_pending === 0) break;
    sleep(0.5);
  }
  const ok = check(st, {
    'queue drained': (s) => s.orders_pending === 0,
    'stores agree (invariant 4)': (s) => s.consistent === true,
    'exactly the stock sold': (s) => s.sold === s.stock_total,
    ...extra,
  });
  console.log(`sale ${saleID}: ${JSON.stringify(st)}`);
  if (!ok) fail(`invariants do not hold after the sale: ${JSON.stringify(st)}`);
  return st;
}
