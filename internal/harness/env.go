package harness

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// ChildEnv is environ without SECKILL_ variables, followed by settings
// (VAR=value). A developer's shell may carry a dev admin token or limits
// turned off; a child server runs at its defaults except where the tool
// that starts it says otherwise.
func ChildEnv(environ []string, settings ...string) []string {
	out := make([]string, 0, len(environ)+len(settings))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "SECKILL_") {
			out = append(out, kv)
		}
	}
	return append(out, settings...)
}

// RandomHex is n random bytes in hex: names of databases, key prefixes and
// secrets that no other run shares.
func RandomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b)
}
