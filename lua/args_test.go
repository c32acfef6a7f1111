package lua_test

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/lua"
)

// The scripts whose replies carry no code refuse malformed arguments with
// an error reply and write nothing (the stock scripts answer a code; see
// internal/stock's TestScriptsRefuseMalformedArguments).
func TestScriptsRefuseMalformedArgumentsWithAnError(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	ctx := context.Background()
	key := func(n string) string { return prefix + ":{item:1}:" + n }
	roomKeys := []string{key("stock"), key("meta"), key("early"), key("late"), key("seq"), key("state"), key("admitted"), key("holding")}
	rdb.Set(ctx, key("stock"), 5, 0)
	rdb.HSet(ctx, key("meta"), "starts_ms", 0, "ends_ms", 1<<50, "limit", 1)
	for _, tc := range []struct {
		name, src string
		keys      []string
		args      []any
	}{
		{"room now", lua.Room, roomKeys, []any{"soon", "join", "u", 1, 1000, 1000}},
		{"room score", lua.Room, roomKeys, []any{1, "join", "u", "0.5", 1000, 1000}},
		{"room interval zero", lua.Room, roomKeys, []any{1, "join", "u", 1, 0, 1000}},
		{"room window", lua.Room, roomKeys, []any{1, "join", "u", 1, 1000, "long"}},
		{"room join without user", lua.Room, roomKeys, []any{1, "join", "", 1, 1000, 1000}},
		{"room op", lua.Room, roomKeys, []any{1, "leave", "u", 1, 1000, 1000}},
		{"ratelimit now", lua.RateLimit, []string{key("limit")}, []any{"now", 1000, 1}},
		{"ratelimit interval", lua.RateLimit, []string{key("limit")}, []any{1, "1.5", 1}},
		{"ratelimit burst", lua.RateLimit, []string{key("limit")}, []any{1, 1000, -1}},
		{"lock obtain owner", lua.LockObtain, []string{key("lock")}, []any{"", 1000}},
		{"lock obtain ttl", lua.LockObtain, []string{key("lock")}, []any{"me", "1.5"}},
		{"lock obtain ttl zero", lua.LockObtain, []string{key("lock")}, []any{"me", 0}},
		{"lock refresh ttl", lua.LockRefresh, []string{key("lock")}, []any{"me", "x"}},
		{"lock release owner", lua.LockRelease, []string{key("lock")}, []any{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := redis.NewScript(tc.src).Run(ctx, rdb, tc.keys, tc.args...).Err()
			if err == nil || !strings.HasPrefix(err.Error(), "ERR ") || !strings.Contains(err.Error(), ".lua: ") {
				t.Fatalf("err = %v, want the script's ERR <script>.lua: ... reply", err)
			}
		})
	}
	// Nothing was written but the two keys set up above.
	if keys := rdb.Keys(ctx, prefix+":*").Val(); len(keys) != 2 {
		t.Fatalf("keys after refusals: %v, want only stock and meta", keys)
	}
}
