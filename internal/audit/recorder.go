package audit

import (
	"context"
	"log/slog"
)

// Recorder records an admin change: Store, or a service's nil for none.
type Recorder interface {
	Record(ctx context.Context, action string, itemID int64, before, after any) error
}

// Write records the change with r if r is set. The change it describes has
// already been made and stays made: a failed write is not returned but
// logged at error level with everything the entry held, so the log keeps
// what the table could not. A client that hung up does not cancel it.
func Write(ctx context.Context, r Recorder, log *slog.Logger, action string, itemID int64, before, after any) {
	if r == nil {
		return
	}
	if err := r.Record(context.WithoutCancel(ctx), action, itemID, before, after); err != nil {
		who, reqID := ActorFrom(ctx)
		log.ErrorContext(ctx, "AUDIT ENTRY LOST: the change was made but not recorded in audit_log",
			"action", action, "item_id", itemID, "actor", who, "request_id", reqID,
			"before", before, "after", after, "err", err)
	}
}
