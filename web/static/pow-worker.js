// Solves one proof-of-work challenge off the page's thread: finds the
// first decimal x (counting from 0) such that SHA-256(challenge ":" x)
// starts with at least difficulty zero bits, the server's Check.
// Digests are asked for in batches: each WebCrypto call is a promise, and
// awaiting them one by one would spend more time waiting than hashing.
const BATCH = 128;
const enc = new TextEncoder();

function leadingZeros(buf) {
  const b = new Uint8Array(buf);
  let n = 0;
  for (const byte of b) {
    if (byte === 0) { n += 8; continue; }
    return n + Math.clz32(byte) - 24;
  }
  return n;
}

async function solve(challenge, difficulty) {
  for (let x = 0; ; x += BATCH) {
    const tries = Array.from({ length: BATCH }, (_, i) => crypto.subtle.digest('SHA-256', enc.encode(`${challenge}:${x + i}`)));
    const sums = await Promise.all(tries);
    const i = sums.findIndex((s) => leadingZeros(s) >= difficulty);
    if (i >= 0) return String(x + i);
  }
}

self.onmessage = async (ev) => {
  const { challenge, difficulty } = ev.data;
  try {
    self.postMessage({ x: await solve(challenge, difficulty) });
  } catch (err) {
    self.postMessage({ error: String(err) });
  }
};
