package draw

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The published draw is read the same way by every checker, or one
// document could verify as two different draws: Go's decoder matches keys
// case-insensitively and keeps the last of duplicate keys, reusing what an
// earlier one decoded; JSON.parse matches exactly and keeps the last; Go
// refuses 1.0 for an integer where JavaScript sees 1. So a document is
// read only when it has none of these: web/static/drawjson.js refuses the
// same ones.

// knownKeys are the keys of a published draw, its variants and entries.
var knownKeys = []string{
	"item_id", "phase", "entries_open_at", "entries_close_at", "drawn_at", "seed_sha256", "salt", "seed",
	"entry_count", "variants", "entries", "winners", "backfilled", "variant_id", "label", "stock_total", "entry_id",
}

// maxDepth bounds the nesting of a document: a draw's is 3.
const maxDepth = 32

// maxInteger is the largest integer both checkers read exactly (2^53-1).
const maxInteger = 1<<53 - 1

var errDecode = errors.New("not one JSON document")

// DecodeProof reads a published draw as served. It is malformed when it
// is not one JSON object-or-value followed by nothing, repeats a key in
// any object, spells a key so that it matches a known one only
// case-insensitively, or has a number that is not an integer spelled as
// one (no fraction, no exponent) within ±(2^53-1), or a value of the wrong
// type for its field. The error wraps ErrMalformed.
func DecodeProof(doc []byte) (Proof, error) {
	if err := strictJSON(doc); err != nil {
		return Proof{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	var p Proof
	if err := json.Unmarshal(doc, &p); err != nil {
		return Proof{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return p, nil
}

func strictJSON(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := strictValue(dec, 0); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: data after the document", errDecode)
	}
	return nil
}

// strictValue reads one value from dec.
func strictValue(dec *json.Decoder, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: nested deeper than %d", errDecode, maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%w: %v", errDecode, err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return strictObject(dec, depth)
		}
		for dec.More() {
			if err := strictValue(dec, depth+1); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Number:
		err = integer(t)
	}
	return err
}

// strictObject reads an object's members after its '{'.
func strictObject(dec *json.Decoder, depth int) error {
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%w: %v", errDecode, err)
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("the key %q is repeated in an object", key)
		}
		seen[key] = true
		if name := caseVariant(key); name != "" {
			return fmt.Errorf("the key %q is not %q: keys are spelled exactly", key, name)
		}
		if err := strictValue(dec, depth+1); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// caseVariant is the known key that key matches only case-insensitively,
// the way Go's decoder matches (strings.EqualFold); "" for none.
func caseVariant(key string) string {
	for _, k := range knownKeys {
		if key != k && strings.EqualFold(key, k) {
			return k
		}
	}
	return ""
}

// integer refuses a number that is not an integer spelled as one, or that
// JavaScript cannot hold exactly.
func integer(n json.Number) error {
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil || i > maxInteger || i < -maxInteger {
		return fmt.Errorf("the number %s is not an integer of at most 2^53-1", n)
	}
	return nil
}
