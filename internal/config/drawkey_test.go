package config_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/testenv"
)

func key(b byte, n int) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, n)) }

// TestDrawKey: unset is no key (draw sales refused, the server starts);
// keys are read current first; a malformed value stops the server with a
// message naming the variable and never quoting the key.
func TestDrawKey(t *testing.T) {
	t.Parallel()
	c, err := config.Load(testenv.Getenv(secrets(nil)))
	if err != nil || len(c.DrawKeys) != 0 {
		t.Fatalf("unset: %v, %v", c.DrawKeys.IDs(), err)
	}
	c, err = config.Load(testenv.Getenv(secrets(map[string]string{"SECKILL_DRAW_KEY": "2026b:" + key(2, 32) + ",2025a:" + key(1, 64)})))
	if err != nil || strings.Join(c.DrawKeys.IDs(), ",") != "2026b,2025a" {
		t.Fatalf("two keys: %v, %v", c.DrawKeys.IDs(), err)
	}
	// Which values are malformed is drawkey's TestParse; here, only that
	// the server refuses them without quoting the secret.
	secret := key(9, 32)
	bad := map[string]string{
		"no id":       secret,
		"short key":   "k:" + key(9, 16),
		"repeated id": "k:" + secret + ",k:" + key(8, 32),
	}
	for name, v := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := config.Load(testenv.Getenv(secrets(map[string]string{"SECKILL_DRAW_KEY": v})))
			if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "SECKILL_DRAW_KEY") {
				t.Fatalf("err = %v, want ErrInvalid naming SECKILL_DRAW_KEY", err)
			}
			if strings.Contains(err.Error(), secret[:20]) {
				t.Fatalf("the error quotes the key: %v", err)
			}
		})
	}
}

// TestDrawLegacySales: no sale is listed by default; ids are read in
// order; anything but positive integers stops the server.
func TestDrawLegacySales(t *testing.T) {
	t.Parallel()
	c, err := config.Load(testenv.Getenv(secrets(nil)))
	if err != nil || len(c.DrawLegacy) != 0 {
		t.Fatalf("unset: %v, %v", c.DrawLegacy, err)
	}
	c, err = config.Load(testenv.Getenv(secrets(map[string]string{"SECKILL_DRAW_LEGACY_SALES": " 12, 7,"})))
	if err != nil || len(c.DrawLegacy) != 2 || c.DrawLegacy[0] != 12 || c.DrawLegacy[1] != 7 {
		t.Fatalf("two sales: %v, %v", c.DrawLegacy, err)
	}
	for _, v := range []string{"x", "0", "-3", "1,2.5", "9223372036854775808"} {
		_, err := config.Load(testenv.Getenv(secrets(map[string]string{"SECKILL_DRAW_LEGACY_SALES": v})))
		if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "SECKILL_DRAW_LEGACY_SALES") {
			t.Errorf("%q: err = %v, want ErrInvalid naming SECKILL_DRAW_LEGACY_SALES", v, err)
		}
	}
}
