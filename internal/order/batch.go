package order

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// batchTimeout bounds how long a batch may keep retrying after shutdown
// began; its entries stay pending and the next worker reclaims them.
const batchTimeout = 30 * time.Second

// handle persists msgs and acknowledges them. It keeps retrying while MySQL
// is down (the entries stay safe in the stream meanwhile) and finishes the
// batch after ctx ends, within batchTimeout.
func (p *Persister) handle(ctx context.Context, msgs []redis.XMessage) {
	// XREADGROUP's COUNT is per stream, so one read can bring more than a
	// batch; MySQL gets at most Batch rows per transaction.
	for len(msgs) > p.cfg.Batch {
		p.handleBatch(ctx, msgs[:p.cfg.Batch])
		msgs = msgs[p.cfg.Batch:]
	}
	p.handleBatch(ctx, msgs)
}

func (p *Persister) handleBatch(ctx context.Context, msgs []redis.XMessage) {
	if len(msgs) == 0 {
		return
	}
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), batchTimeout)
	defer cancel()
	entries, bad := parse(msgs)
	for _, m := range bad {
		p.obs.Failed("malformed")
		p.log.Error("persister: malformed stream entry", "id", m.ID, "values", m.Values)
	}
	entries, gone, held := p.heldBack(bctx, entries)
	if held {
		return
	}
	res, err := p.persistRetrying(ctx, bctx, entries)
	if err != nil {
		return // left pending: reclaimed later
	}
	p.obs.Persisted(len(res.Inserted))
	p.recordRejected(bctx, res.Rejected)
	p.announce(bctx, res)
	done := append(append(append([]keyspace.Entry{}, res.Inserted...), res.Duplicate...), rejectedEntries(res.Rejected)...)
	done = append(done, gone...) // acknowledged, never written
	if err := p.ack(bctx, done, bad); err != nil {
		p.obs.Failed("ack")
		p.log.Warn("persister: ack failed; entries will be redelivered and skipped", "err", err)
		return
	}
	p.repairAfterRejects(bctx, res.Rejected)
}

func (p *Persister) persistRetrying(ctx, bctx context.Context, entries []keyspace.Entry) (Result, error) {
	if len(entries) == 0 {
		return Result{}, nil
	}
	delay := 50 * time.Millisecond
	for {
		res, err := p.store.Persist(bctx, entries)
		if err == nil {
			return res, nil
		}
		p.obs.Failed("write")
		p.log.Warn("persister: batch failed, retrying", "n", len(entries), "err", err)
		if ctx.Err() != nil || bctx.Err() != nil {
			return Result{}, err
		}
		wait(bctx, delay)
		delay = min(2*delay, 2*time.Second)
	}
}

// recordRejected writes entries MySQL refused to the item's dead-letter
// stream before they are acknowledged, so nothing vanishes silently.
func (p *Persister) recordRejected(ctx context.Context, rejected []Rejection) {
	if len(rejected) == 0 {
		return
	}
	p.obs.Rejected(len(rejected))
	for _, r := range rejected {
		e := r.Entry
		p.log.Error("persister: order rejected by MySQL", "order_id", e.OrderID, "item_id", e.ItemID, "reason", r.Reason)
		p.rdb.XAdd(ctx, &redis.XAddArgs{Stream: p.keys.Item(e.ItemID).DeadLetters(), Values: map[string]any{
			"id": e.OrderID, "user": e.UserID, "qty": e.Quantity, "reason": r.Reason, "stream_id": e.StreamID,
		}})
	}
}

// repairAfterRejects repairs every item that had a rejection. A rejection
// means Redis and MySQL disagree; giving the stock back blindly would be
// wrong when MySQL has less stock than Redis thought (Redis would then sell
// units that do not exist). The repair measures the drift against MySQL and
// corrects it, and must run after the ack so the rejected entries are no
// longer counted as queued.
func (p *Persister) repairAfterRejects(ctx context.Context, rejected []Rejection) {
	byItem := map[int64][]keyspace.Entry{}
	for _, r := range rejected {
		byItem[r.Entry.ItemID] = append(byItem[r.Entry.ItemID], r.Entry)
	}
	for id, entries := range byItem {
		if err := p.repair.Repair(ctx, id, entries); err != nil {
			p.obs.Failed("repair")
			p.log.Error("persister: repair after rejected orders failed; re-warm the item", "item_id", id, "err", err)
		}
	}
}

// ack acknowledges and deletes finished entries, so an item's stream length
// is the number of orders not yet in MySQL.
func (p *Persister) ack(ctx context.Context, done []keyspace.Entry, bad []redis.XMessage) error {
	ids := make(map[string][]string)
	for _, e := range done {
		s := p.keys.Item(e.ItemID).Stream()
		ids[s] = append(ids[s], e.StreamID)
	}
	_, err := p.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for stream, list := range ids {
			pl.XAck(ctx, stream, keyspace.Group, list...)
			pl.XDel(ctx, stream, list...)
		}
		return nil
	})
	if len(bad) > 0 {
		// Malformed entries stay pending (visible in XPENDING) for a human.
		p.log.Error("persister: malformed entries left pending", "n", len(bad))
	}
	return err
}

// announce tells the pages following these orders that they are in MySQL
// now, or were refused.
func (p *Persister) announce(ctx context.Context, res Result) {
	if p.stored == nil || len(res.Inserted)+len(res.Rejected) == 0 {
		return
	}
	ids := make([]string, 0, len(res.Inserted)+len(res.Rejected))
	for _, e := range res.Inserted {
		ids = append(ids, e.OrderID)
	}
	for _, r := range res.Rejected {
		ids = append(ids, r.Entry.OrderID)
	}
	p.stored(ctx, ids)
}

func parse(msgs []redis.XMessage) ([]keyspace.Entry, []redis.XMessage) {
	entries := make([]keyspace.Entry, 0, len(msgs))
	var bad []redis.XMessage
	for _, m := range msgs {
		e, err := keyspace.ParseEntry(m.ID, m.Values)
		if err != nil {
			bad = append(bad, m)
			continue
		}
		entries = append(entries, e)
	}
	return entries, bad
}

func rejectedEntries(rs []Rejection) []keyspace.Entry {
	out := make([]keyspace.Entry, len(rs))
	for i, r := range rs {
		out[i] = r.Entry
	}
	return out
}
