package config

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/seckill/seckill/internal/drawkey"
)

// drawKeys parses SECKILL_DRAW_KEY (see package drawkey). Unset is an empty
// ring: the server starts, and refuses to create draw sales. The error
// names the key at fault by place and id, never quoting the value: it is a
// secret, and start-up errors end up in logs.
func (r *reader) drawKeys(name string) drawkey.Ring {
	ring, err := drawkey.Parse(r.getenv(name))
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	return ring
}

// errNotAnID: a sale id is a positive integer.
var errNotAnID = errors.New("not a sale id")

// ids parses SECKILL_DRAW_LEGACY_SALES: the draws made before draw keys
// that may be drawn from the seed MySQL holds. It lives here, not in
// MySQL, because whoever can write MySQL could otherwise give any sale a
// stored seed of their choice.
func (r *reader) ids(name string) []int64 {
	var out []int64
	for _, v := range r.list(name) {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			r.fail(name, r.getenv(name), fmt.Errorf("%q: %w", v, errNotAnID))
			return nil
		}
		out = append(out, id)
	}
	return out
}
