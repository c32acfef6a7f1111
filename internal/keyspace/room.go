package keyspace

// The waiting room of a sale (lua/room.lua) lives under the item's own base,
// so its keys share the {item:ID} hash tag, and therefore the cluster slot,
// with Stock and Meta, which the room script reads in the same call.

// RoomEarly is a sorted set user id -> secret random score of the shoppers
// who joined before the opening; ascending score is their queue order.
func (k Item) RoomEarly() string { return k.base + "room:early" }

// RoomLate is a sorted set user id -> join sequence of the shoppers who
// joined after the opening; they queue behind every early joiner, FIFO.
func (k Item) RoomLate() string { return k.base + "room:late" }

// RoomSeq counts late joins; it hands out RoomLate's sequence numbers.
func (k Item) RoomSeq() string { return k.base + "room:seq" }

// RoomState is a hash: n (shoppers admitted from the head of the queue) and
// next_us (unix µs of the next admission credit).
func (k Item) RoomState() string { return k.base + "room:state" }

// RoomAdmitted is a hash user id -> admission time in unix µs of everyone
// ever admitted; it is never pruned, so admission is once per shopper.
func (k Item) RoomAdmitted() string { return k.base + "room:admitted" }

// RoomHolding is a sorted set user id -> admission time in unix µs of the
// admitted shoppers whose buying window is still open. It counts against
// the stock left when the room decides how many more it may admit.
func (k Item) RoomHolding() string { return k.base + "room:holding" }

// RoomKeys is KEYS for lua/room.lua, in its order.
func (k Item) RoomKeys() []string {
	return []string{k.Stock(), k.Meta(), k.RoomEarly(), k.RoomLate(), k.RoomSeq(),
		k.RoomState(), k.RoomAdmitted(), k.RoomHolding()}
}
