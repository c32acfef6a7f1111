// A waiting shopper's chance of buying, worked out on the page from the
// room's live state and the shopper's fixed place, by the same rules as the
// server's (internal/room/chance.go), so every waiting page follows a
// returned unit or a sell-out the moment the room's stream says so.
//
// Before the shopper may buy: the admitted shoppers whose turn is still open
// (they buy first) and those ahead in the queue, each taking at most
// `limit` units or none at all.
//   likely    units left > before × limit: enough even if all buy the most
//   possible  units left > before: enough if each buys one
//   unlikely  some left, but fewer than shoppers before: only if some pass
//   sold_out  nothing left; final once every unit taken is paid for
// There is no percentage: it would need a guess at who buys.

// chanceOf returns the chance of the shopper at position (1-based) in
// room, or null without a place or once the sale has ended.
export function chanceOf(position, room) {
  if (position === null || position === undefined || !room || room.ended) return null;
  const ahead = Math.max(position - 1 - room.admitted, 0);
  const left = Math.max(room.stock_left, 0);
  const holding = room.holding ?? 0;
  const limit = Math.max(room.limit ?? 1, 1);
  const before = holding + ahead;
  let outlook = 'unlikely';
  if (left <= 0) outlook = 'sold_out';
  else if (Math.floor((left - 1) / limit) >= before) outlook = 'likely';
  else if (left > before) outlook = 'possible';
  const unpaid = room.units_unpaid ?? null;
  return { outlook, left, holding, ahead, before, limit, unpaid, final: outlook === 'sold_out' && unpaid === 0 };
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

// who says who buys before the shopper, e.g. "the 5 shoppers before you
// (2 let in and choosing, 3 waiting)".
function who(c) {
  const all = c.before === 1 ? 'the shopper before you' : `the ${c.before} shoppers before you`;
  if (c.holding === 0 || c.ahead === 0) return all;
  return `${all} (${c.holding} let in and choosing, ${c.ahead} waiting)`;
}

// chanceWords puts a chance into words: a short label and a sentence.
export function chanceWords(c) {
  const left = plural(c.left, 'unit', 'units');
  const one = c.before === 1;
  switch (c.outlook) {
    case 'likely':
      if (c.before === 0) return ['Good chance', `You are next and ${left} ${c.left === 1 ? 'is' : 'are'} left: buy when your turn comes.`];
      if (c.limit === 1) return ['Good chance', `${left} left: enough for you even if ${who(c)} ${one ? 'buys' : 'all buy'} one.`];
      return ['Good chance', `${left} left: enough for you even if ${who(c)} ${one ? 'buys' : 'buy'} the most allowed (${c.limit}${one ? '' : ' each'}).`];
    case 'possible':
      return ['Fair chance', `${left} left for ${who(c)}: enough if ${one ? 'they buy' : 'each buys'} one, not if ${one ? 'they buy' : 'all buy'} ${c.limit}.`];
    case 'unlikely':
      return ['Poor chance', `${left} left for ${who(c)}: you get one only if ${one ? 'they do' : 'some of them do'} not buy.`];
    default:
      return ['Sold out', soldOutWords(c)];
  }
}

function soldOutWords(c) {
  if (c.final) return 'Every unit is paid for, so none can come back. There is no need to wait.';
  const queue = c.before === 0 ? 'you are next in line for it' : `${who(c)} ${c.before === 1 ? 'comes' : 'come'} first`;
  if (c.unpaid === null) return `A unit comes back only if an order is cancelled or not paid in time; then ${queue}.`;
  return `${plural(c.unpaid, 'unit is', 'units are')} in orders not paid yet. If one is cancelled or not paid in time, ` +
    `it goes to the next in line: ${queue}.`;
}
