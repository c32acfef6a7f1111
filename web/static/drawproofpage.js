// The page that explains a draw and checks it in the browser
// (draw-proof.html?item=ID): the published data, the recomputed ranking
// per variant next to the published winners, held to what this device kept
// when the signed-in shopper entered (drawkeep.js): the commitment shown
// then, and their entry, found by the id computed from their secret.
import { $, el, APIError, fetchItem, header } from './api.js';
import { canCheck, checkDraw } from './drawcheck.js';
import { kept } from './drawkeep.js';
import { ProofBox, shorten } from './drawproof.js';

const itemID = new URLSearchParams(location.search).get('item') || '';
const SHOWN = 5; // rows of a ranking shown beyond its winners
const DRAWING_POLL_MS = 3000;

function fail(text) {
  $('#error').textContent = text;
  $('#error').classList.remove('hidden');
}

// line is a check's line: ok true (passed), false (failed) or 'warn' (not
// checked, and why).
function line(ok, text) {
  const [cls, mark] = ok === 'warn' ? ['warn', '!'] : (ok ? ['pass', '✓'] : ['fail', '✗']);
  return el('li', { class: cls, 'data-ok': String(ok) }, el('span', { class: 'mark', textContent: mark }), ' ', text);
}

// outcomeAt is what place i of variant v's ranking got.
function outcomeAt(v, i) {
  if (i < v.due) return 'won';
  return i < v.due + v.passed ? 'backfilled' : `waitlist #${i - v.due - v.passed + 1}`;
}

// rankingTable shows the head of a variant's ranking: the winners, then
// the waitlist, and the shopper's own place wherever it is.
function rankingTable(v, mine) {
  const rows = v.ranking.map((e, i) => ({ e, i })).filter(({ e, i }) => i < v.due + SHOWN || e.entry_id === mine);
  const body = rows.map(({ e, i }) => el('tr', { class: e.entry_id === mine ? 'mine' : '' },
    el('td', { class: 'num', textContent: String(i + 1) }),
    el('td', {}, el('code', { class: 'hex', title: e.entry_id, textContent: shorten(e.entry_id, 8, 6) }), e.entry_id === mine ? ' (you)' : ''),
    el('td', { textContent: outcomeAt(v, i) })));
  const more = v.ranking.length - rows.length;
  return el('div', { class: 'ranking' },
    el('h3', { class: 'sub', textContent: `${v.label}: ${v.stock_total} ${v.stock_total === 1 ? 'unit' : 'units'}, ${v.ranking.length} entries` }),
    el('div', { class: 'table-wrap' }, el('table', {},
      el('thead', {}, el('tr', {}, el('th', { class: 'num', textContent: 'Place' }), el('th', { textContent: 'Entry id' }), el('th', { textContent: 'Outcome' }))),
      el('tbody', {}, ...body))),
    more > 0 ? el('p', { class: 'muted', textContent: `…and ${more} more on the waitlist.` }) : '');
}

// keptFor is what the check holds the draw to: what this device kept when
// user entered (the commitment and salt then, and their secret, from which
// their entry id is computed under the kept salt).
function keptFor(user) {
  const k = user ? kept(itemID, user) : null;
  if (!k) return { kept: null };
  return { kept: k, commitment: k.commitment, salt: k.salt, secret: k.entry_secret, userID: user, entryID: k.entry_id,
    variantID: k.variant_id };
}

const OUTCOME = {
  won: 'drawn: one of its first units',
  backfilled: 'passed a unit a winner left (backfilled)',
  waitlist: 'on the waitlist',
};

// lines are the checks done, one per line; on a failure, what failed.
function lines(d, r, k) {
  if (r.verdict === 'fail') return [line(false, r.message)];
  const out = [k.kept ? line(true, `The commitment is the one this device kept when you entered: ${shorten(k.commitment)}.`)
    : line('warn', 'This device kept no commitment from when you entered, so the seed is checked only against the commitment the draw publishes now, which a forger could replace along with the seed. Check on the device you entered with, or with seckill verify-draw -commitment.')];
  if (k.kept) {
    out.push(k.salt ? line(true, `The salt is the one this device kept when you entered: ${shorten(k.salt)}.`)
      : line('warn', 'This device kept no salt from when you entered, so your entry id is computed from the salt the draw publishes now, which a forger could replace along with every entry id.'));
  }
  if (!r.drawn) return out;
  out.push(line(true, 'The SHA-256 of the revealed seed is the commitment.'),
    line(true, 'Every winner and every unit passed on is one of the published entries, each once, under a listed variant.'),
    ...r.variants.map((v) => line(true, v.ranking.length === 0 ? `${v.label}: no entries, so no winners.`
      : `${v.label}: the winners are the first ${v.due} of its ranking${v.passed ? `, and the ${v.passed} offered a unit since are the next in order` : ''}.`)));
  if (r.mine) {
    const m = r.mine;
    out.push(line(true, `Your entry id, computed here from the kept salt, your secret and your user id, is ${shorten(m.entry_id)}: place ${m.place} of ${m.of} for ${m.label}, ${OUTCOME[m.outcome]}.`));
  } else if (!k.kept) {
    out.push(line('warn', 'Your entry was not looked for: this device kept no entry secret for you.'));
  }
  return out;
}

const VERDICT = {
  pass: 'This draw checks out: recomputed here, against the commitment you saw when you entered.',
  unconfirmed: 'The draw is consistent, but its commitment or salt could not be checked against one seen earlier.',
  not_drawn: 'Not drawn: your entry cannot be checked yet.',
  fail: 'This draw does NOT check out.',
};

// check checks the draw (text, as served; d, as parsed to show), and says
// whether to stop asking for it.
async function check(text, d, user) {
  if (!canCheck()) {
    $('#verdict').textContent = 'This browser hashes only on secure (https) pages: check with seckill verify-draw instead.';
    return true;
  }
  const k = keptFor(user);
  // This device's clock, not the server's: a server withholding its draw
  // could also say entries have not closed.
  const r = await checkDraw(text, { ...k, now: Date.now() });
  if (r.verdict === 'not_drawn') {
    $('#checks').replaceChildren(...lines(d, r, k), line(false, `Entries closed at ${new Date(d.entries_close_at).toLocaleString()} and no draw is published, so your entry cannot be checked yet. This page checks again by itself; a draw never published was withheld.`));
    $('#verdict').textContent = VERDICT.not_drawn;
    $('#verdict').dataset.ok = 'false';
    $('#verdict').dataset.verdict = r.verdict;
    return d.phase === 'ended';
  }
  if (r.verdict !== 'fail' && !r.drawn) {
    $('#verdict').textContent = d.phase === 'entries_open' || d.phase === 'drawing'
      ? 'The seed is revealed at the draw: this page checks it then by itself.' : 'The sale ended before it was drawn.';
    $('#checks').replaceChildren(...lines(d, r, k));
    return d.phase === 'ended';
  }
  $('#checks').replaceChildren(...lines(d, r, k));
  $('#verdict').textContent = VERDICT[r.verdict];
  $('#verdict').dataset.ok = String(r.verdict === 'pass');
  $('#verdict').dataset.verdict = r.verdict;
  $('#rankings').replaceChildren(...r.variants.filter((v) => v.ranking.length > 0).map((v) => rankingTable(v, k.entryID)));
  return true;
}

// fetchDraw is the published draw's text, byte for byte as served (a
// byte order mark included, which JSON refuses): the check reads the text,
// as seckill verify-draw reads the bytes, so both read one document.
async function fetchDraw() {
  const res = await fetch(`/api/v1/items/${encodeURIComponent(itemID)}/draw`, { credentials: 'same-origin', cache: 'no-cache' });
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer());
  if (!res.ok) throw new APIError(res.status, parsed(text));
  return text;
}

// parsed is the draw's text as an object to show; {} when it is none
// (the check then says why).
function parsed(text) {
  try {
    const d = JSON.parse(text);
    return d && typeof d === 'object' && !Array.isArray(d) ? d : {};
  } catch {
    return {};
  }
}

async function main() {
  const [user, item] = await Promise.all([header(), fetchItem(itemID).catch(() => null)]);
  if (!item) return fail('This sale does not exist.');
  $('#back').href = `/sale/${encodeURIComponent(itemID)}`;
  $('#sale-name').textContent = item.name;
  $('#data-link').href = `/api/v1/items/${encodeURIComponent(itemID)}/draw`;
  const k = user ? kept(itemID, user) : null;
  $('#verify-cmd').textContent = `seckill verify-draw -commitment ${(k && k.commitment) || 'COMMITMENT'} -salt ${(k && k.salt) || 'SALT'} -variant ${(k && k.variant_id) || 'VARIANT_ID'} -user ${user || 'YOUR_NAME'} ` +
    `-secret ${(k && k.entry_secret) || 'YOUR_ENTRY_SECRET'} ${location.origin}/sale/${encodeURIComponent(itemID)}`;
  const box = new ProofBox($('#published'), itemID);
  for (;;) {
    let text;
    try {
      text = await fetchDraw();
    } catch (err) {
      return fail(err.code === 'not_a_draw' ? 'This sale is not a draw.' : 'Cannot read the draw. Reload to try again.');
    }
    const d = parsed(text);
    box.paint(d, null, user ? kept(itemID, user) : null);
    if (d.phase === 'upcoming') $('#verdict').textContent = 'Entries are not open yet: nothing is published.';
    else if (await check(text, d, user)) return;
    await new Promise((r) => setTimeout(r, DRAWING_POLL_MS));
  }
}

main();
