package webhook

import (
	"strings"
	"testing"
)

// TestSubjectsFitTheColumn: outbox.subject is VARCHAR(64); a subject that
// does not fit would fail the transaction of the change it announces.
func TestSubjectsFitTheColumn(t *testing.T) {
	for _, s := range []string{OfferSubject(strings.Repeat("f", 64)), SaleSubject(1<<63 - 1), OrderSubject(strings.Repeat("Z", 26))} {
		if len(s) > 64 {
			t.Errorf("subject %q is %d bytes", s, len(s))
		}
	}
}
