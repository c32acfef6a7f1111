// The waiting room on a sale page. The page joins once, learns its place
// when the sale opens, and then follows the room over one shared event
// stream: how many are admitted tells it how many are still ahead, so a
// crowd of waiting pages costs the server one tick per room, not a request
// per page per second. It asks the server again only when its turn has come
// (to fetch the admission token) or when the opening draw has placed it.
import { api, humanError, serverNow } from './api.js';
import { chanceOf, chanceWords } from './chance.js';

// Pages learning their place at the opening spread their requests over this
// long, so the opening second is not a stampede of its own.
const OPENING_SPREAD_MS = 1500;

// queued says whether a standing is a place in the line, not yet admitted:
// the server calls it sold_out or paused while the room is.
const queued = (me) => me && me.joined && !me.admitted_at && ['waiting', 'paused', 'sold_out'].includes(me.state);

// capped says whether the room holds everyone back because the open turns
// may take every unit left (lua/room.lua admits no more turns than that).
const capped = (c) => !!c && c.left > 0 && c.holding >= Math.ceil(c.left / c.limit);

export function waitingRoom(itemID, onChange) {
  const path = `/api/v1/items/${itemID}/room`;
  let me = null; // the shopper's last standing (RoomStanding)
  let room = null; // the room's last state (RoomState), from either source
  let asking = false;
  let error = '';
  let askTimer = null;

  const publish = () => onChange(view(me, room, serverNow(), error));

  async function ask(method) {
    if (asking) return;
    asking = true;
    try {
      me = await api(method, path);
      room = me;
      error = '';
    } catch (err) {
      error = humanError(err);
    } finally {
      asking = false;
      publish();
    }
  }

  // askSoon asks once within spreadMs, however often it is called meanwhile.
  function askSoon(spreadMs) {
    if (askTimer) return;
    askTimer = setTimeout(() => { askTimer = null; ask('GET'); }, Math.random() * spreadMs);
  }

  function onRoom(state) {
    room = state;
    publish();
    // A resume lets the room admit again: ask where this shopper stands.
    if (me && me.state === 'paused' && !state.paused) askSoon(OPENING_SPREAD_MS);
    if (!queued(me) || state.ended) return;
    if (state.opened && me.position === null) askSoon(OPENING_SPREAD_MS);
    else if (me.position !== null && state.admitted >= me.position && !state.sold_out) askSoon(200);
  }

  const events = new EventSource(`${path}/events`);
  events.addEventListener('room', (ev) => {
    try { onRoom(JSON.parse(ev.data)); } catch { /* a garbled event: wait for the next */ }
  });
  // An admission expires on the clock, not on an event.
  setInterval(publish, 1000);

  return {
    join: () => ask('POST'),
    refresh: () => ask('GET'),
    close: () => events.close(),
  };
}

// view is what the page shows, from the standing the server last gave and
// the room's latest state: the place is fixed, so only "ahead" and the
// chance move.
export function view(me, room, now, error) {
  const v = { state: me ? me.state : 'loading', position: null, ahead: null, waitSeconds: null,
    token: '', expiresAt: 0, opened: false, soldOut: false, queued: 0, stockLeft: null, chance: null, error };
  if (!me) return v;
  Object.assign(v, { position: me.position, opened: room.opened, soldOut: room.sold_out, queued: room.queued,
    stockLeft: room.stock_left });
  if (me.state === 'admitted') {
    Object.assign(v, { expiresAt: Date.parse(me.token_expires_at), token: me.token, ahead: 0, waitSeconds: 0 });
    if (now >= v.expiresAt) Object.assign(v, { state: 'expired', token: '', ahead: null, waitSeconds: null });
    return v;
  }
  if (!queued(me)) return v;
  // The server gives a chance only to a shopper waiting with a place; the
  // page keeps it current from the room's state.
  v.chance = me.chance ? chanceOf(me.position, room) : null;
  if (room.ended) v.state = 'ended';
  else if (room.paused) v.state = 'paused';
  else if (room.sold_out) v.state = 'sold_out';
  else v.state = 'waiting';
  if (v.state === 'waiting' && me.position !== null) {
    v.ahead = Math.max(me.position - 1 - room.admitted, 0);
    // While the open turns can take every unit left, nobody more is let in
    // until one of them buys or passes: no rate can say when that is.
    v.waitSeconds = room.rate > 0 && !capped(v.chance) ? Math.ceil(v.ahead / room.rate) : null;
  }
  return v;
}

// describe puts a view into words for the page: a headline and a note.
export function describe(v, rate) {
  switch (v.state) {
    case 'not_joined':
      return ['You are not in the waiting room yet.', ''];
    case 'waiting':
      if (v.position === null) {
        return ['You are in the waiting room.',
          `When the sale opens, everyone waiting gets a random place in line, so there is no need to hurry or refresh. Then ${rate === 1 ? 'one shopper a second gets a turn' : `${rate} shoppers a second get their turn`} to buy.`];
      }
      if (v.ahead === 0 && capped(v.chance)) {
        return ['You are next in line.', 'Your turn comes when a unit is free: when a shopper let in before you buys or lets their turn pass.'];
      }
      if (v.ahead === 0) return ['Your turn is coming up now…', 'Keep this page open.'];
      return [`You are number ${v.position} in line.`, 'Keep this page open: it updates by itself, and Buy turns on when it is your turn.'];
    case 'admitted':
      return ['It is your turn: buy now!', `Your turn lasts until ${new Date(v.expiresAt).toLocaleTimeString()}.`];
    case 'expired':
      return ['Your turn to buy has passed.', 'The place went to the next shopper in line.'];
    case 'sold_out':
      if (v.chance && v.chance.final) return ['Sold out: you will not get one this time.', chanceWords(v.chance)[1]];
      if (v.chance) return ['Sold out for now.', chanceWords(v.chance)[1]];
      return ['Sold out. Everyone still waiting has been told.', 'If units come back (a cancelled order), the room lets the next in line buy them.'];
    case 'ended':
      return ['This sale has ended.', ''];
    case 'paused':
      return ['The sale is paused for a moment.', 'You keep your place in line. Keep this page open: the line moves again when the sale resumes.'];
    default:
      return ['Joining the waiting room…', ''];
  }
}

// waitText formats an estimated wait for people.
export function waitText(seconds) {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 1) return 'now';
  if (seconds < 90) return `about ${seconds} s`;
  return `about ${Math.round(seconds / 60)} min`;
}
