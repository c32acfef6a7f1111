// Proof of work for the pages: solveChallenge runs the search in a Web
// Worker (pow-worker.js), so the page keeps painting its countdown while
// the browser hashes.

// solveChallenge resolves to x, the decimal string that solves challenge
// at difficulty; the header to send is `${challenge}:${x}`.
export function solveChallenge(challenge, difficulty) {
  return new Promise((resolve, reject) => {
    const w = new Worker('/static/pow-worker.js');
    w.onmessage = (ev) => {
      w.terminate();
      if (ev.data.error) reject(new Error(ev.data.error));
      else resolve(ev.data.x);
    };
    w.onerror = (ev) => { w.terminate(); reject(new Error(ev.message || 'proof-of-work worker failed')); };
    w.postMessage({ challenge, difficulty });
  });
}
