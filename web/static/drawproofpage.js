// The page that explains a draw and checks it in the browser
// (draw-proof.html?item=ID): the published data, the recomputed ranking
// per variant next to the published winners, and, for a signed-in shopper,
// their own entry id computed from the salt and their name.
import { $, el, api, fetchItem, header } from './api.js';
import { canCheck, checkDraw, entryID } from './drawcheck.js';
import { ProofBox, shorten } from './drawproof.js';

const itemID = new URLSearchParams(location.search).get('item') || '';
const SHOWN = 5; // rows of a ranking shown beyond its winners
const DRAWING_POLL_MS = 3000;

function fail(text) {
  $('#error').textContent = text;
  $('#error').classList.remove('hidden');
}

function line(ok, text) {
  return el('li', { class: ok ? 'pass' : 'fail', 'data-ok': String(ok) }, el('span', { class: 'mark', textContent: ok ? '✓' : '✗' }), ' ', text);
}

// rankingTable shows the head of a variant's ranking: the winners, then
// the waitlist, and the shopper's own place wherever it is.
function rankingTable(v, mine) {
  const rows = v.ranking.map((e, i) => ({ e, i })).filter(({ e, i }) => i < v.due + SHOWN || e.entry_id === mine);
  const body = rows.map(({ e, i }) => el('tr', { class: e.entry_id === mine ? 'mine' : '' },
    el('td', { class: 'num', textContent: String(i + 1) }),
    el('td', {}, el('code', { class: 'hex', title: e.entry_id, textContent: shorten(e.entry_id, 8, 6) }), e.entry_id === mine ? ' (you)' : ''),
    el('td', { textContent: i < v.due ? 'won' : `waitlist #${i - v.due + 1}` })));
  const more = v.ranking.length - rows.length;
  return el('div', { class: 'ranking' },
    el('h3', { class: 'sub', textContent: `${v.label}: ${v.stock_total} ${v.stock_total === 1 ? 'unit' : 'units'}, ${v.ranking.length} entries` }),
    el('div', { class: 'table-wrap' }, el('table', {},
      el('thead', {}, el('tr', {}, el('th', { class: 'num', textContent: 'Place' }), el('th', { textContent: 'Entry id' }), el('th', { textContent: 'Outcome' }))),
      el('tbody', {}, ...body))),
    more > 0 ? el('p', { class: 'muted', textContent: `…and ${more} more on the waitlist.` }) : '');
}

async function check(d, user) {
  if (!canCheck()) {
    $('#verdict').textContent = 'This browser hashes only on secure (https) pages: check with seckill verify-draw instead.';
    return;
  }
  const r = await checkDraw(d);
  const mine = user ? await entryID(d.salt, user) : '';
  const entered = mine && d.entries.find((e) => e.entry_id === mine);
  const checks = [line(r.seedMatches, 'The SHA-256 of the revealed seed is the commitment published when entries opened.'),
    line(r.strangers === 0, 'Every winner is one of the published entries.'),
    ...r.variants.map((v) => line(v.ok, v.ranking.length === 0 ? `${v.label}: no entries, so no winners.`
      : `${v.label}: the winners are the first ${v.due} of its ranking${v.passed ? `, and the ${v.passed} offered a unit since are the next in order` : ''}.`))];
  if (user) checks.push(line(true, entered ? `Your entry id, computed here from the salt and “${user}”, is ${shorten(mine)}: it is in the draw.` : `Your entry id would be ${shorten(mine)}; it is not among the entries.`));
  $('#checks').replaceChildren(...checks);
  $('#verdict').textContent = r.ok ? 'This draw checks out: recomputed here, it gives the same winners.' : 'This draw does NOT check out: see below.';
  $('#verdict').dataset.ok = String(r.ok);
  $('#rankings').replaceChildren(...r.variants.filter((v) => v.ranking.length > 0).map((v) => rankingTable(v, mine)));
}

async function main() {
  const [user, item] = await Promise.all([header(), fetchItem(itemID).catch(() => null)]);
  if (!item) return fail('This sale does not exist.');
  $('#back').href = `/sale/${encodeURIComponent(itemID)}`;
  $('#sale-name').textContent = item.name;
  $('#data-link').href = `/api/v1/items/${encodeURIComponent(itemID)}/draw`;
  $('#verify-cmd').textContent = `seckill verify-draw -user ${user || 'YOUR_NAME'} ${location.origin}/sale/${encodeURIComponent(itemID)}`;
  const box = new ProofBox($('#published'), itemID);
  for (;;) {
    let d;
    try {
      d = await api('GET', `/api/v1/items/${encodeURIComponent(itemID)}/draw`, undefined, {}, 'no-cache');
    } catch (err) {
      return fail(err.code === 'not_a_draw' ? 'This sale is not a draw.' : 'Cannot read the draw. Reload to try again.');
    }
    box.paint(d, null);
    if (d.phase === 'drawn') return check(d, user);
    $('#verdict').textContent = d.phase === 'upcoming' ? 'Entries are not open yet: nothing is published.'
      : 'The seed is revealed at the draw: this page checks it then by itself.';
    await new Promise((r) => setTimeout(r, DRAWING_POLL_MS));
  }
}

main();
