package order

import (
	"context"
	"slices"

	"github.com/seckill/seckill/internal/keyspace"
)

// ReplicaGate says whether what the given entries' primaries hold has
// reached enough replicas (stock.Store.ReplicatedEntries): it returns the
// entries those primaries still hold, or an error if the replicas lag.
type ReplicaGate func(ctx context.Context, entries []keyspace.Entry) ([]keyspace.Entry, error)

// WaitReplicated has every batch wait until its entries are on enough
// replicas before MySQL gets them. A reservation the primary took while cut
// off from its replicas was answered 503, and if the primary then dies it
// is gone from Redis: persisted anyway, MySQL would hold an order nobody
// was told of, and the shopper's retry on the new primary a second one,
// which MySQL refuses after its 202. Set it before Run.
func (p *Persister) WaitReplicated(gate ReplicaGate) { p.replicated = gate }

// heldBack reports whether entries must wait for replicas (they stay
// pending, and the reclaim retries them after ClaimIdle), and otherwise
// which of them to persist and which the primary no longer holds: those
// are only acknowledged, never written.
func (p *Persister) heldBack(ctx context.Context, entries []keyspace.Entry) (kept, gone []keyspace.Entry, held bool) {
	if p.replicated == nil || len(entries) == 0 {
		return entries, nil, false
	}
	kept, err := p.replicated(ctx, entries)
	if err != nil {
		p.obs.Failed("replication")
		p.log.Warn("persister: entries not on enough replicas yet; left pending", "consumer", p.cfg.Consumer,
			"n", len(entries), "err", err)
		return nil, nil, true
	}
	for _, e := range entries {
		if !slices.ContainsFunc(kept, func(k keyspace.Entry) bool { return k.StreamID == e.StreamID && k.ItemID == e.ItemID }) {
			gone = append(gone, e)
		}
	}
	if len(gone) > 0 {
		p.obs.Failed("unreplicated")
		p.log.Warn("persister: entries gone from the primary (never acknowledged); not persisted", "consumer", p.cfg.Consumer,
			"n", len(gone))
	}
	return kept, gone, false
}
