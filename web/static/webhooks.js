// The dashboard's webhooks panel: the outbox at a glance (pending, the age
// of the oldest pending, failed) and the failed deliveries, each with the
// receiver's last answer and a Re-send button. It loads with the first live
// snapshot and then at most every few seconds while snapshots come (every
// few seconds by itself if they stop), so an open dashboard costs the
// server one small query every POLL_MS.
import { $, el, api, APIError } from './api.js';

const PAGE = 50;
const POLL_MS = 5000;
const BACKLOG_S = 600; // SeckillWebhookBacklog's threshold (deploy/prometheus/alerts.yml)

let lastLoad = 0; // when the last load started (ms)
let loading = null;

const visible = () => !$('#dashboard').classList.contains('hidden');

async function load() {
  lastLoad = Date.now();
  try {
    const page = await api('GET', `/api/v1/admin/webhooks?state=failed&limit=${PAGE}`, undefined, {}, 'no-store');
    render(page);
  } catch (err) {
    $('#wh-msg').className = 'message error';
    $('#wh-msg').textContent = `Cannot load the webhook outbox: ${err.message}`;
  }
}

// refresh reloads, one load at a time.
function refresh() {
  if (!loading) loading = load().finally(() => { loading = null; });
  return loading;
}

function render(page) {
  const { stats, endpoints, deliveries } = page;
  $('#wh-endpoints').replaceChildren(...(endpoints.length === 0
    ? [el('strong', { textContent: 'No webhook endpoint configured (SECKILL_WEBHOOK_URL)' }), ': no events are written.']
    : ['Events go to ', ...endpoints.flatMap((e, i) => [i ? ', ' : '', breakable(e)]), '.']));
  tile('#wh-pending', String(stats.pending), '');
  tile('#wh-oldest', stats.pending ? age(stats.oldest_pending_seconds) : '–', stats.oldest_pending_seconds > BACKLOG_S ? 'bad' : '');
  tile('#wh-failed', String(stats.failed), stats.failed > 0 ? 'bad' : 'ok');
  const body = $('#wh-rows');
  body.dataset.failed = String(deliveries.length);
  if (deliveries.length === 0) {
    body.replaceChildren(el('tr', {}, el('td', { colSpan: 6, class: 'muted', textContent: 'No failed deliveries.' })));
  } else {
    body.replaceChildren(...deliveries.map(row));
  }
  if (stats.failed > deliveries.length) {
    body.append(el('tr', {}, el('td', { colSpan: 6, class: 'muted',
      textContent: `The newest ${deliveries.length} of ${stats.failed} failed deliveries; GET /api/v1/admin/webhooks?state=failed pages through all.` })));
  }
}

function tile(sel, text, tone) {
  const t = $(sel);
  t.textContent = text;
  t.dataset.tone = tone;
}

function row(d) {
  const resend = el('button', { type: 'button', textContent: 'Re-send' });
  resend.addEventListener('click', () => resendOne(d, resend));
  const answer = d.last_status === null ? 'no answer' : `HTTP ${d.last_status}`;
  return el('tr', { 'data-seq': String(d.seq), 'data-event': d.event_id },
    el('td', { class: 'h-time', title: d.created_at, textContent: when(new Date(d.created_at)) }),
    el('td', { class: 'h-event' }, el('span', { class: 'action-tag', textContent: d.type }), ' ',
      el('span', { class: 'h-subject muted', textContent: d.subject }), el('code', { class: 'h-id', textContent: d.event_id })),
    el('td', { class: 'h-endpoint' }, breakable(d.endpoint)),
    el('td', { class: 'num h-attempts', textContent: String(d.attempts) }),
    el('td', { class: 'h-answer' }, el('strong', { textContent: answer }),
      el('span', { class: 'muted', textContent: d.last_error ? ` · ${d.last_error}` : '' })),
    el('td', { class: 'h-act' }, resend));
}

async function resendOne(d, button) {
  button.disabled = true;
  const msg = $('#wh-msg');
  try {
    await api('POST', `/api/v1/admin/webhooks/${d.seq}/resend`);
    button.closest('tr').remove(); // it is pending again: no longer failed
    msg.className = 'message ok';
    msg.textContent = `Re-sent ${d.type} ${d.event_id}.`;
  } catch (err) {
    msg.className = 'message error';
    msg.textContent = err instanceof APIError && err.code === 'delivery_not_failed'
      ? `${d.event_id} is no longer failed: it was re-sent already.` : `Cannot re-send ${d.event_id}: ${err.message}`;
  }
  await refresh();
}

// breakable shows a URL that may wrap after its "@" and after each "/" of
// its path, not in the middle of a host or port.
function breakable(url) {
  const parts = url.split(/(?<=@|[^/:]\/)/);
  return el('code', { class: 'url' }, ...parts.flatMap((p, i) => (i ? [el('wbr'), p] : [p])));
}

const pad = (n) => String(n).padStart(2, '0');
function when(d) {
  const t = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return d.toDateString() === new Date().toDateString() ? t : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${t}`;
}

// age reads seconds as the largest two units: "42 s", "12 min", "3 h 5 min".
function age(s) {
  s = Math.floor(s);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  const h = Math.floor(s / 3600);
  return h < 48 ? `${h} h ${Math.floor((s % 3600) / 60)} min` : `${Math.floor(h / 24)} d ${h % 24} h`;
}

// admin.js passes on each live snapshot: the first loads the panel, the
// later ones at most every POLL_MS.
window.addEventListener('admin:snapshot', () => {
  if (document.visibilityState === 'visible' && Date.now() - lastLoad >= POLL_MS) refresh();
});

setInterval(() => {
  if (visible() && document.visibilityState === 'visible' && Date.now() - lastLoad > POLL_MS) refresh();
}, POLL_MS);
