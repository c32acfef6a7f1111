package metrics

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/lua"
)

// scriptHook times every Lua script call and counts its NOSCRIPT reloads
// and every BUSY answer, as a go-redis hook on the server's client: every
// caller (stock, room, locks, rate limits) runs its scripts through
// go-redis's Script (EVALSHA, then EVAL on NOSCRIPT), and the hook sees
// both commands without any caller changing. A pipeline of script calls is
// timed once, as one round trip. The observers are looked up once here, so
// a call costs a map read by hash and one observation, no allocation.
type scriptHook struct {
	bySHA  map[string]*scriptObs // sha1 hex of the source -> its metrics
	bySrc  map[string]*scriptObs // source (EVAL) -> its metrics
	busy   prometheus.Counter
	onBusy func() // told of every BUSY answer, for the log
}

type scriptObs struct {
	duration prometheus.Observer
	reloads  prometheus.Counter
}

func newScriptHook(dur *prometheus.HistogramVec, reloads *prometheus.CounterVec, busy prometheus.Counter) *scriptHook {
	h := &scriptHook{bySHA: map[string]*scriptObs{}, bySrc: map[string]*scriptObs{}, busy: busy}
	for name, src := range lua.Named {
		o := &scriptObs{duration: dur.WithLabelValues(name), reloads: reloads.WithLabelValues(name)}
		sum := sha1.Sum([]byte(src))
		h.bySHA[hex.EncodeToString(sum[:])] = o
		h.bySrc[src] = o
	}
	return h
}

// script returns the metrics of cmd's script, and whether cmd is an
// EVALSHA, or nil for any other command.
func (h *scriptHook) script(cmd redis.Cmder) (*scriptObs, bool) {
	args := cmd.Args()
	if len(args) < 2 {
		return nil, false
	}
	name, _ := args[0].(string)
	body, _ := args[1].(string)
	switch name {
	case "evalsha":
		return h.bySHA[body], true
	case "eval":
		return h.bySrc[body], false
	}
	return nil, false
}

// failed counts a command's error if it is a NOSCRIPT or a BUSY answer,
// and reports whether it was a NOSCRIPT (the call did not run; go-redis
// runs it again with EVAL). A single command's error is what the next hook
// returns: go-redis sets it on the command only after the hooks.
func (h *scriptHook) failed(err error, o *scriptObs, sha bool) bool {
	if err == nil {
		return false
	}
	if redisconn.ScriptBusy(err) {
		h.busy.Inc()
		if h.onBusy != nil {
			h.onBusy()
		}
		return false
	}
	if sha && o != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		o.reloads.Inc()
		return true
	}
	return false
}

func (h *scriptHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *scriptHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		o, sha := h.script(cmd)
		if o == nil { // not a script: only a BUSY answer is of interest
			err := next(ctx, cmd)
			h.failed(err, nil, false)
			return err
		}
		start := time.Now()
		err := next(ctx, cmd)
		if !h.failed(err, o, sha) {
			o.duration.Observe(time.Since(start).Seconds())
		}
		return err
	}
}

func (h *scriptHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		var first *scriptObs
		for _, cmd := range cmds {
			o, sha := h.script(cmd)
			h.failed(cmd.Err(), o, sha)
			if first == nil {
				first = o
			}
		}
		if first != nil {
			first.duration.Observe(time.Since(start).Seconds())
		}
		return err
	}
}
