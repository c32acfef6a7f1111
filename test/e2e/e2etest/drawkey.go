package e2etest

import (
	"crypto/rand"
	"encoding/base64"

	"github.com/seckill/seckill/internal/drawkey"
)

// TestDrawKey is the draw key of the tests' servers, fresh per test binary.
var TestDrawKey, TestDrawKeys = NewDrawKey("test")

func NewDrawKey(id string) ([]byte, drawkey.Ring) {
	secret := make([]byte, 32)
	rand.Read(secret)
	r, err := drawkey.Parse(id + ":" + base64.StdEncoding.EncodeToString(secret))
	if err != nil {
		panic(err)
	}
	return secret, r
}
