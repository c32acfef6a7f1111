// What a draw sale's page says, from where the draw and the shopper's entry
// stand: a state (for styling and tests), a headline and a note. Pure, so
// every wording lives here and nowhere else.
import { countdown } from './api.js';

// short formats a duration that is usually under an hour as mm:ss.
export function short(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s >= 3600) return countdown(ms);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

// entriesPhase is where a draw's entries stand by the clock alone:
// 'upcoming', 'entries_open', or 'closed' (drawing or drawn: the server says).
export function entriesPhase(item, now) {
  if (now < Date.parse(item.entries_open_at)) return 'upcoming';
  return now < Date.parse(item.entries_close_at) ? 'entries_open' : 'closed';
}

// entriesBadge is a draw's status badge (class, text) while entries are not
// yet closed; after the close the sale's own status applies.
export const entriesBadge = { upcoming: ['upcoming', 'Draw soon'], entries_open: ['live', 'Entries open'] };

const at = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

// describeDraw returns [state, headline, note, clock]; clock is a ticking
// part of the headline, kept apart so that screen readers hear the headline
// when it changes, not every second.
// v: {phase, signedIn, entry (null: not entered, undefined: not known yet),
// label (the entered variant's, '' for a one-variant sale), changing,
// openAt, closeAt, now, ended}.
export function describeDraw(v) {
  const e = v.entry;
  const what = v.label ? ` for ${v.label}` : '';
  const fair = 'Winners are drawn at random when entries close, so entering early gives no advantage.';
  if (v.phase === 'upcoming') {
    return ['upcoming', `Entries open at ${at(v.openAt)}.`, `Enter any time until ${at(v.closeAt)}. ${fair}`];
  }
  if (v.phase === 'entries_open') {
    if (!v.signedIn) return ['open', 'Entries are open.', ''];
    if (e === undefined) return ['loading', 'Looking up your entry…', ''];
    if (e === null) return ['open', 'Entries are open.', `Choose a size, then enter. ${fair}`];
    if (v.changing) return ['changing', `You're entered${what}.`, `Choose another size and switch your entry, until ${at(v.closeAt)}.`];
    return ['entered', `You're entered${what}.`, `The draw is at ${at(v.closeAt)}. Keep this page open or come back after: your result waits for you here.`];
  }
  if (!v.signedIn) return [v.phase, v.phase === 'drawn' ? 'The draw is done.' : 'Drawing…', 'Entries are closed.'];
  if (e === null) return ['closed', 'Entries are closed.', 'You did not enter this draw.'];
  if (v.phase === 'drawing' || !e || !e.result) return ['drawing', 'Drawing…', `Entries are closed; the winners are being drawn. You entered${what}.`];
  return describeResult(e, v.label, v.now, v.ended);
}

function describeResult(e, label, now, ended) {
  const what = label ? ` for ${label}` : '';
  const won = label ? `You won ${label}` : 'You won';
  switch (e.result) {
    case 'won': {
      if (e.order_id) return ['bought', `${won}: it's yours.`, ''];
      const left = e.purchase_deadline ? Date.parse(e.purchase_deadline) - now : 0;
      if (left > 0) {
        return ['won', `${won} — buy within `, 'If you do not buy in time, the unit goes to the next shopper on the waitlist.', short(left)];
      }
      return ['expired', `The unit you won${what} went to the next shopper on the waitlist.`, 'Your time to buy passed, or your order was cancelled.'];
    }
    case 'waitlist':
      if (ended) return ['lost', 'Not drawn.', 'The sale has ended.'];
      return ['waitlist', `Not drawn this time — you are #${e.position} on the waitlist${what}.`,
        "We'll offer you a unit if one comes back. This page updates by itself."];
    default:
      return ['lost', 'Not drawn.', ''];
  }
}
