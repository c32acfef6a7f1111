// Following one order as the server changes it. The server pushes the order
// over Server-Sent Events (GET /api/v1/orders/{id}/events) at once and on
// every change, so an open page costs an idle connection, not a request
// every half second. Where EventSource is missing, or its stream keeps
// failing (a proxy that buffers streams), the page falls back to asking
// every few seconds.
import { api } from './api.js';

// A stream that fails this many times in a row without one message is
// given up for the slow poll.
const STREAM_FAILURES = 3;

// The fallback's pace: slow on purpose, a page that cannot stream must not
// cost what the old half-second polling cost.
const POLL_MS = 5000;

// followOrder calls onOrder with the order as it is now and after every
// change, for as long as wanted(order) holds, and onGone if the order no
// longer exists (MySQL refused it). It returns a function that stops.
export function followOrder(orderID, { wanted, onOrder, onGone }) {
  const path = `/api/v1/orders/${encodeURIComponent(orderID)}`;
  let stopped = false;
  let stopStream = () => {};
  let timer = null;
  const stop = () => {
    stopped = true;
    stopStream();
    clearTimeout(timer);
  };
  const seen = (o) => {
    if (stopped) return;
    onOrder(o);
    if (!wanted(o)) stop();
  };
  const gone = () => {
    if (stopped) return;
    stop();
    onGone();
  };
  const poll = async () => {
    if (stopped) return;
    try {
      seen(await api('GET', path));
    } catch (err) {
      if (err.code === 'order_not_found') return gone();
    }
    if (!stopped) timer = setTimeout(poll, POLL_MS);
  };
  if (typeof EventSource === 'function') stopStream = stream(`${path}/events`, seen, gone, poll);
  else timer = setTimeout(poll, POLL_MS);
  return stop;
}

// stream opens the order's event stream and returns its close. EventSource
// reconnects by itself after a dropped stream; a stream that is refused
// (401, 404: readyState CLOSED) or fails STREAM_FAILURES times running is
// closed and handed to fallback.
function stream(url, seen, gone, fallback) {
  const es = new EventSource(url);
  let failures = 0;
  es.addEventListener('order', (ev) => {
    failures = 0;
    try { seen(JSON.parse(ev.data)); } catch { /* a garbled event: wait for the next */ }
  });
  es.addEventListener('error', (ev) => {
    // The server's own "error" event carries data; the browser's, for a
    // broken connection, does not.
    if (ev.data !== undefined) {
      es.close();
      gone();
      return;
    }
    failures++;
    if (es.readyState === EventSource.CLOSED || failures >= STREAM_FAILURES) {
      es.close();
      fallback();
    }
  });
  return () => es.close();
}
