package e2etest

import (
	"strings"
	"testing"
)

// Want is one expected answer.
type Want struct {
	Status int
	Code   string // error code, "" for success
	Field  string // error field, if any
}

func Check(t *testing.T, r Reply, w Want) {
	t.Helper()
	if r.Status != w.Status || r.ErrCode() != w.Code {
		t.Fatalf("got %d %q (%s), want %d %q", r.Status, r.ErrCode(), r.Raw, w.Status, w.Code)
	}
	if w.Field != "" {
		if f, _ := r.Body["error"].(map[string]any)["field"].(string); f != w.Field {
			t.Fatalf("error field = %q, want %q (%s)", f, w.Field, r.Raw)
		}
	}
	if w.Code != "" && !strings.Contains(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("error answered as %q, want JSON", r.Header.Get("Content-Type"))
	}
}
