package report

import (
	"strings"
	"testing"
)

// TestCSVRowsAreInert: text cells are quoted, with quotes doubled and a
// single quote before every place a formula could start; numbers bare.
func TestCSVRowsAreInert(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"EU 42", `"EU 42"`},
		{"", `""`},
		{"2026-11-22T10:00:00.000Z", `"2026-11-22T10:00:00.000Z"`},
		{"=1+1", `"'=1+1"`},
		{"-ann", `"'-ann"`},
		{"x;=cmd()", `"x;'=cmd()"`},
		{"x,@SUM(A1)", `"x,'@SUM(A1)"`},
		{"x\t+1", "\"x\t'+1\""},
		{"  =1", `"  '=1"`},
		{"a; \t=b", "\"a; '\t'=b\""}, // a tab where a cell may start is a formula start
		{"\r=1", "\"'\r'=1\""},
		{"a\n-1", "\"a\n'-1\""},
		{`say "=hi"`, `"say ""=hi"""`},
		{"a-b=c", `"a-b=c"`},
		{`a";"=1`, `"a"";""'=1"`}, // quotes are skipped like spaces
		{`"=1`, `"""'=1"`},
		{"x;\u00a0=1", "\"x;\u00a0'=1\""},
		{"\u3000+1", "\"\u3000'+1\""},
		{"\uff1d1+1", "\"'\uff1d1+1\""},
		{"a;\uff20b", "\"a;'\uff20b\""},
		{"a\uff0d1", "\"a\uff0d1\""},
		{"\xff=1", "\"\xff=1\""}, // an invalid byte is no blank, and is kept
		{"\xff;-1", "\"\xff;'-1\""},
	} {
		var b strings.Builder
		w := newCSVRows(&b, []bool{false, true})
		if err := w.row([]string{tc.in, "7"}); err != nil {
			t.Fatal(err)
		}
		if err := w.flush(); err != nil {
			t.Fatal(err)
		}
		if got, want := b.String(), tc.want+",7\n"; got != want {
			t.Errorf("%q written %q, want %q", tc.in, got, want)
		}
	}
}
