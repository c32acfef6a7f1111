// Proof of work for the pages: fetch a challenge, solve it in a Web Worker
// (pow-worker.js) so the page keeps painting its countdown while the
// browser hashes, and send the request with the proof. A stand-in with the
// contract of the proof-of-work branch's pow.js, which replaces it.
import { api, APIError } from './api.js';

export const POW_HEADER = 'X-Proof-Of-Work';

// solveChallenge resolves to the header's value, "<challenge>:<x>", x
// being the decimal string that solves challenge at difficulty.
export function solveChallenge(challenge, difficulty) {
  return new Promise((resolve, reject) => {
    const w = new Worker('/static/pow-worker.js');
    w.onmessage = (ev) => {
      w.terminate();
      if (ev.data.error) reject(new Error(ev.data.error));
      else resolve(`${challenge}:${ev.data.x}`);
    };
    w.onerror = (ev) => { w.terminate(); reject(new Error(ev.message || 'proof-of-work worker failed')); };
    w.postMessage({ challenge, difficulty });
  });
}

// withProof calls send(headers), headers carrying a proof of work for sale
// itemID, and returns what it returns. A refusal carries a fresh challenge
// (the first expired while the shopper hesitated): it is solved and sent
// once more. A server that hands out no challenges (one older than proof of
// work) is sent no proof.
export async function withProof(itemID, send) {
  let c;
  try {
    c = await api('POST', `/api/v1/items/${encodeURIComponent(itemID)}/challenge`);
  } catch (err) {
    if (err.code === 'not_found') return send({}); // no such route
    throw err;
  }
  try {
    return await send({ [POW_HEADER]: await solveChallenge(c.challenge, c.difficulty) });
  } catch (err) {
    if (!(err instanceof APIError) || err.code !== 'proof_of_work_required' || !err.challenge) throw err;
    return send({ [POW_HEADER]: await solveChallenge(err.challenge, err.difficulty) });
  }
}
