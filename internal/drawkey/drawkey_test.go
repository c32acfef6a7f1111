package drawkey_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/seckill/seckill/internal/drawkey"
)

func b64(b byte, n int) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, n)) }

// TestSeedVector: the seed is HMAC-SHA256(key, "seckill draw seed v1" ||
// item id as 8 bytes big-endian || nonce), as computed apart from Go by
// `openssl dgst -sha256 -mac HMAC -macopt hexkey:0101…` over that message
// (item 7: 0000000000000007).
func TestSeedVector(t *testing.T) {
	r, err := drawkey.Parse("k1:" + b64(1, 32))
	if err != nil {
		t.Fatal(err)
	}
	nonce := bytes.Repeat([]byte{2}, 32)
	commitment, _ := hex.DecodeString("ee594c7042282ce8b37138d622e14e96b520732eed2f6052828fda3d56be977a")
	seed, err := r.Seed(7, "k1", nonce, commitment)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(seed); got != "3844f3c996ac899d679392699028c21bba645ec5a0b9503f956b891fdab79fd6" {
		t.Fatalf("seed %s", got)
	}
}

// TestSealThenSeed: a sale sealed under the current key is derived again by
// a ring that still holds that key, current or not; a ring without it, or
// with other bytes under its id, or the sealed values under another sale's
// id, refuses.
func TestSealThenSeed(t *testing.T) {
	a, b := "A:"+b64(0xa, 32), "B:"+b64(0xb, 48)
	ringA, _ := drawkey.Parse(a)
	s, err := ringA.Seal(41)
	if err != nil || s.KeyID != "A" || len(s.Nonce) != drawkey.NonceSize || len(s.Commitment) != sha256.Size {
		t.Fatalf("seal: %+v %v", s, err)
	}
	if again, _ := ringA.Seal(41); bytes.Equal(again.Nonce, s.Nonce) {
		t.Fatal("two sales got one nonce")
	}
	rotated, _ := drawkey.Parse(b + "," + a)
	seed, err := rotated.Seed(41, s.KeyID, s.Nonce, s.Commitment)
	if sum := sha256.Sum256(seed); err != nil || !bytes.Equal(sum[:], s.Commitment) {
		t.Fatalf("rotated ring: %x %v", seed, err)
	}
	if next, _ := rotated.Seal(42); next.KeyID != "B" {
		t.Fatalf("a new sale under %q, want the current key B", next.KeyID)
	}
	withoutA, _ := drawkey.Parse(b)
	if _, err := withoutA.Seed(41, "A", s.Nonce, s.Commitment); !errors.Is(err, drawkey.ErrUnknownKey) {
		t.Fatalf("ring without A: %v", err)
	}
	otherA, _ := drawkey.Parse("A:" + b64(0xc, 32))
	if _, err := otherA.Seed(41, "A", s.Nonce, s.Commitment); !errors.Is(err, drawkey.ErrCommitment) {
		t.Fatalf("other bytes under A: %v", err)
	}
	if _, err := ringA.Seed(42, "A", s.Nonce, s.Commitment); !errors.Is(err, drawkey.ErrCommitment) {
		t.Fatalf("sale 41's nonce and commitment copied to sale 42: %v", err)
	}
	if _, err := drawkey.Ring(nil).Seal(1); !errors.Is(err, drawkey.ErrNoKey) {
		t.Fatalf("empty ring: %v", err)
	}
}

// TestParse: the values a server refuses to start with, and error messages
// that never quote a key.
func TestParse(t *testing.T) {
	secret := b64(7, 32)
	bad := map[string]string{
		"no id":           secret,
		"empty id":        ":" + secret,
		"long id":         strings.Repeat("i", 17) + ":" + secret,
		"id with a space": "a b:" + secret,
		"not base64":      "k:" + strings.Repeat("!", 44),
		"url base64":      "k:" + base64.URLEncoding.EncodeToString(bytes.Repeat([]byte{0xfb}, 32)),
		"short key":       "k:" + b64(7, 31),
		"long key":        "k:" + b64(7, 65),
		"repeated id":     "k:" + secret + ",k:" + b64(8, 32),
		"empty second":    "k:" + secret + ",",
	}
	for name, v := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := drawkey.Parse(v)
			if !errors.Is(err, drawkey.ErrMalformed) {
				t.Fatalf("Parse(%q) = %v, want ErrMalformed", v, err)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), strings.TrimPrefix(v, "k:")) {
				t.Fatalf("the error quotes the key: %v", err)
			}
		})
	}
	r, err := drawkey.Parse(" new_2:" + b64(1, 64) + " , old-1:" + b64(2, 32))
	if err != nil || strings.Join(r.IDs(), ",") != "new_2,old-1" {
		t.Fatalf("two keys: %v %v", r.IDs(), err)
	}
	if r, err := drawkey.Parse(""); err != nil || len(r) != 0 {
		t.Fatalf("unset: %v %v", r, err)
	}
}

// TestKeyNeverPrinted: a ring printed any way fmt prints (a config dumped
// to a log) shows ids, not key bytes.
func TestKeyNeverPrinted(t *testing.T) {
	secret := bytes.Repeat([]byte{0x5a}, 32)
	r, err := drawkey.Parse("k1:" + base64.StdEncoding.EncodeToString(secret))
	if err != nil {
		t.Fatal(err)
	}
	type config struct{ DrawKeys drawkey.Ring }
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%x"} {
		out := fmt.Sprintf(format, config{r})
		if strings.Contains(out, "ZZZZ") || strings.Contains(out, "WlpaWlpa") || strings.Contains(out, "5a5a") ||
			strings.Contains(out, "90 90") {
			t.Errorf("%s prints %q", format, out)
		}
	}
}
