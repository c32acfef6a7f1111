package order

import (
	"context"
	"slices"

	"github.com/seckill/seckill/internal/keyspace"
)

// ReplicaGate says whether what the given sales' primaries hold has reached
// enough replicas (stock.Store.Replicated); it returns an error if not.
type ReplicaGate func(ctx context.Context, itemIDs []int64) error

// WaitReplicated has every batch wait until its entries are on enough
// replicas before MySQL gets them. A reservation the primary took while cut
// off from its replicas was answered 503, and if the primary then dies it
// is gone from Redis: persisted anyway, MySQL would hold an order nobody
// was told of, and the shopper's retry on the new primary a second one,
// which MySQL refuses after its 202. Set it before Run.
func (p *Persister) WaitReplicated(gate ReplicaGate) { p.replicated = gate }

// heldBack reports whether entries must wait for replicas; they stay
// pending, and the reclaim retries them after ClaimIdle.
func (p *Persister) heldBack(ctx context.Context, entries []keyspace.Entry) bool {
	if p.replicated == nil || len(entries) == 0 {
		return false
	}
	var items []int64
	for _, e := range entries {
		if !slices.Contains(items, e.ItemID) {
			items = append(items, e.ItemID)
		}
	}
	if err := p.replicated(ctx, items); err != nil {
		p.obs.Failed("replication")
		p.log.Warn("persister: entries not on enough replicas yet; left pending", "consumer", p.cfg.Consumer,
			"n", len(entries), "err", err)
		return true
	}
	return false
}
