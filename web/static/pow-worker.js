// The proof-of-work solver, in a Web Worker so the page stays responsive
// while it works (pow.js starts it). Given {challenge, difficulty} it
// finds the smallest decimal x such that SHA-256(challenge ":" x) starts
// with difficulty zero bits, hashing with WebCrypto, and answers {x,
// hashes}, or {error}. Each digest is a promise, and awaiting one at a
// time costs more than the hash: the digests go out a batch at a time.
const BATCH = 256;
const encoder = new TextEncoder();

// zeroBits counts the leading zero bits of a digest.
function zeroBits(bytes) {
  let n = 0;
  for (const b of bytes) {
    if (b !== 0) return n + Math.clz32(b) - 24;
    n += 8;
  }
  return n;
}

// input is challenge ":" x as bytes; the digits are ASCII.
function input(prefix, x) {
  const digits = String(x);
  const buf = new Uint8Array(prefix.length + digits.length);
  buf.set(prefix);
  for (let i = 0; i < digits.length; i++) buf[prefix.length + i] = digits.charCodeAt(i);
  return buf;
}

async function solve(challenge, difficulty) {
  if (!self.crypto || !self.crypto.subtle) throw new Error('WebCrypto is unavailable: the page must be served over HTTPS');
  const prefix = encoder.encode(`${challenge}:`);
  for (let start = 0; ; start += BATCH) {
    const pending = [];
    for (let x = start; x < start + BATCH; x++) pending.push(crypto.subtle.digest('SHA-256', input(prefix, x)));
    const digests = await Promise.all(pending);
    for (let i = 0; i < digests.length; i++) {
      if (zeroBits(new Uint8Array(digests[i])) >= difficulty) return { x: String(start + i), hashes: start + i + 1 };
    }
  }
}

self.onmessage = async (ev) => {
  try {
    self.postMessage(await solve(String(ev.data.challenge), Number(ev.data.difficulty)));
  } catch (err) {
    self.postMessage({ error: String(err && err.message ? err.message : err) });
  }
};
