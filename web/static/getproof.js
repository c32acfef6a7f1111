// The one place the pages get a proof of work for an action (entering a
// draw): ask the server for a challenge, solve it off the page's thread
// (pow.js), and retry once with the fresh challenge a refusal carries, as
// when a challenge expired while the shopper hesitated.
import { api } from './api.js';
import { solveChallenge } from './pow.js';

// getProof returns the X-Proof-Of-Work value for one action on sale itemID,
// or '' from a server that hands out no challenges (one older than proof of
// work); fresh is a {challenge, difficulty} the server already handed out.
export async function getProof(itemID, fresh = null) {
  let c = fresh;
  try {
    c = c || await api('POST', `/api/v1/items/${encodeURIComponent(itemID)}/challenge`);
  } catch (err) {
    if (err.code === 'not_found') return ''; // no such route
    throw err;
  }
  return `${c.challenge}:${await solveChallenge(c.challenge, c.difficulty)}`;
}

// proofHeader is the header that carries proof, if there is one.
export const proofHeader = (proof) => (proof ? { 'X-Proof-Of-Work': proof } : {});

// withProof runs send(proof) and, when the server refuses the proof with a
// fresh challenge, solves that one and sends once more.
export async function withProof(itemID, send) {
  try {
    return await send(await getProof(itemID));
  } catch (err) {
    if (err.code !== 'proof_of_work_required' || !err.challenge) throw err;
    return send(await getProof(itemID, { challenge: err.challenge, difficulty: err.difficulty }));
  }
}
