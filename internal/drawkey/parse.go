package drawkey

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// ErrMalformed is returned (wrapped) by Parse for a value that is not a
// list of ID:BASE64 keys. Its message never quotes a key's bytes.
var ErrMalformed = errors.New("drawkey: malformed SECKILL_DRAW_KEY")

// Parse reads SECKILL_DRAW_KEY: comma-separated "ID:BASE64" keys, the
// current one first. An id is 1 to 16 of [A-Za-z0-9_-] and appears once; a
// key is 32 to 64 bytes after standard base64 decoding. An empty value is an
// empty ring. It returns ErrMalformed naming the key at fault by place and
// id, never by its bytes.
func Parse(v string) (Ring, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var r Ring
	seen := map[string]bool{}
	for i, part := range strings.Split(v, ",") {
		k, err := parseKey(strings.TrimSpace(part))
		if err == nil && seen[k.ID] {
			err = fmt.Errorf("id %q is used twice", k.ID)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: key number %d: %v", ErrMalformed, i+1, err)
		}
		seen[k.ID] = true
		r = append(r, k)
	}
	return r, nil
}

func parseKey(s string) (Key, error) {
	id, b64, ok := strings.Cut(s, ":")
	if !ok {
		return Key{}, errors.New(`want "ID:BASE64"`)
	}
	if !validID(id) {
		return Key{}, fmt.Errorf("the id must be 1 to %d of A-Z, a-z, 0-9, _ and -", MaxIDLen)
	}
	secret, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return Key{}, fmt.Errorf("key %q is not standard base64", id)
	}
	if len(secret) < MinKeySize || len(secret) > MaxKeySize {
		return Key{}, fmt.Errorf("key %q is %d bytes; want %d to %d (e.g. openssl rand -base64 32)", id, len(secret), MinKeySize, MaxKeySize)
	}
	return Key{ID: id, secret: secret}, nil
}

func validID(id string) bool {
	if id == "" || len(id) > MaxIDLen {
		return false
	}
	for _, c := range id {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}
