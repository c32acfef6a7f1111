package redisconn_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
)

// NoGroup recognises Redis's answer for a missing stream or group, wrapped
// or not, and nothing else Redis or go-redis says.
func TestNoGroup(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	ctx := context.Background()
	stream, plain := prefix+":stream", prefix+":plain"
	if err := rdb.Set(ctx, plain, "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: []string{"k", "v"}}).Err(); err != nil {
		t.Fatal(err)
	}
	noStream := rdb.XPending(ctx, prefix+":missing", "g").Err()
	noGroup := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{stream, ">"}, Block: -1}).Err()
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"missing stream", noStream, true},
		{"missing group", noGroup, true},
		{"wrapped", fmt.Errorf("read pending: %w", noGroup), true},
		{"nil", nil, false},
		{"redis.Nil", rdb.Get(ctx, prefix+":absent").Err(), false},
		{"wrong type", rdb.XPending(ctx, plain, "g").Err(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := redisconn.NoGroup(tc.err); got != tc.want {
				t.Errorf("NoGroup(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
