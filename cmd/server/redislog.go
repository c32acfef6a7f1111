package main

import (
	"context"
	"fmt"
	"log/slog"
)

// redisLogger sends go-redis's internal messages (reconnects, dial failures)
// through slog, so every line the server prints is structured.
type redisLogger struct{}

func (redisLogger) Printf(ctx context.Context, format string, v ...any) {
	slog.WarnContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}
