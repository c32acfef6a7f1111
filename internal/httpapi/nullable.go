package httpapi

import "encoding/json"

// nullable is an optional JSON field that may also be null: absent leaves
// a value unchanged, null clears it, a value sets it.
type nullable[T any] struct {
	val  *T
	null bool
}

// UnmarshalJSON is only called for a present field.
func (n *nullable[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		n.val, n.null = nil, true
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	n.val, n.null = &v, false
	return nil
}
