package httpapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// strictKeys rejects what encoding/json lets through: a top-level key that
// matches a field only by ignoring case ("Quantity" for "quantity"), and a
// key given twice (the last would win, silently). Nested values are not
// walked: the bodies here are flat.
func strictKeys(body []byte, dst any) *Error {
	fields := jsonFields(dst)
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil // not an object: the decoder reports it
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return nil
		}
		switch {
		case seen[key]:
			return invalid(key, key+" is given twice")
		case fields != nil && !fields[key]:
			return invalid(key, "unknown field "+key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return nil
}

// jsonFields lists the exact JSON names of dst's struct fields.
func jsonFields(dst any) map[string]bool {
	t := reflect.TypeOf(dst)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	out := map[string]bool{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = true
		}
	}
	return out
}
