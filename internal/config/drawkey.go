package config

import (
	"fmt"

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
