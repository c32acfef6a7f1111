// The proof of work the server asks before a shopper joins a waiting room
// or enters a draw: fetch a challenge, solve it in a Web Worker
// (pow-worker.js) while the shopper waits anyway, and send the request with
// the proof in X-Proof-Of-Work. The server checks it with one hash.
import { api, APIError } from './api.js';

export const POW_HEADER = 'X-Proof-Of-Work';

// solveChallenge solves challenge at difficulty in a worker of its own and
// resolves to the header's value, "<challenge>:<x>".
export function solveChallenge(challenge, difficulty) {
  return new Promise((resolve, reject) => {
    const worker = new Worker('/static/pow-worker.js');
    const finish = (fn, v) => { worker.terminate(); fn(v); };
    worker.onmessage = (ev) => {
      if (ev.data.error) finish(reject, new Error(ev.data.error));
      else finish(resolve, `${challenge}:${ev.data.x}`);
    };
    worker.onerror = (ev) => finish(reject, new Error(ev.message || 'the proof-of-work solver failed'));
    worker.postMessage({ challenge, difficulty });
  });
}

// withProof calls send(headers) with a proof of work for sale itemID and
// returns what it returns. When the server refuses the proof (it expired
// while the tab slept, say) it solves the fresh challenge the refusal
// carries and sends once more; a second refusal is thrown.
export async function withProof(itemID, send) {
  const { challenge, difficulty } = await api('POST', `/api/v1/items/${itemID}/challenge`);
  try {
    return await send({ [POW_HEADER]: await solveChallenge(challenge, difficulty) });
  } catch (err) {
    if (!(err instanceof APIError) || err.code !== 'proof_of_work_required' || !err.challenge) throw err;
    return send({ [POW_HEADER]: await solveChallenge(err.challenge, err.difficulty) });
  }
}
