package httpapi

import (
	"bufio"
	"io"
	"strings"
)

// csvRows writes the orders export: every text cell quoted, numbers bare.
// encoding/csv quotes only the cells that need it for a parser that reads
// commas, so "x;=cmd()" went out bare and a spreadsheet whose locale
// splits on ";" ran the "=cmd()" it made a cell of. A quoted cell stays one
// cell whatever the reader's delimiter.
type csvRows struct {
	w       *bufio.Writer
	numeric []bool // columns written bare: integers seckill formats
}

func newCSVRows(w io.Writer, numeric []bool) *csvRows {
	return &csvRows{w: bufio.NewWriter(w), numeric: numeric}
}

// header writes names as they are: seckill's own, none needs quoting.
func (r *csvRows) header(names []string) {
	_, _ = r.w.WriteString(strings.Join(names, ",") + "\n")
}

// row writes one record; numeric columns bare, the others inert and quoted.
func (r *csvRows) row(rec []string) error {
	for i, cell := range rec {
		if i > 0 {
			_ = r.w.WriteByte(',')
		}
		if i < len(r.numeric) && r.numeric[i] {
			_, _ = r.w.WriteString(cell)
			continue
		}
		_ = r.w.WriteByte('"')
		_, _ = r.w.WriteString(strings.ReplaceAll(csvText(cell), `"`, `""`))
		_ = r.w.WriteByte('"')
	}
	return r.w.WriteByte('\n')
}

// flush sends what is buffered.
func (r *csvRows) flush() error { return r.w.Flush() }

// csvText makes a cell of text inert for spreadsheets (OWASP's advice
// against CSV injection): where a formula could start, at the cell's start
// or after a character some reader splits cells or rows on (",", ";", tab,
// CR, LF), a formula character ("=", "+", "-", "@", tab, CR), even after
// spaces, gets a single quote before it, which a spreadsheet shows as text.
// A user id like "-x", a label like "=HYPERLINK(...)" or "x;=cmd()" would
// otherwise run when the file is opened.
func csvText(s string) string {
	if !csvNeedsQuote(s) {
		return s // most cells: the export allocates nothing for them
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	start := true
	for i := 0; i < len(s); i++ {
		if start && strings.IndexByte(csvFormulaStart, s[i]) >= 0 {
			b.WriteByte('\'')
		}
		b.WriteByte(s[i])
		start = nextStart(start, s[i])
	}
	return b.String()
}

const (
	csvFormulaStart = "=+-@\t\r"
	csvSplitters    = ",;\t\r\n"
)

// csvNeedsQuote says whether csvText would change s.
func csvNeedsQuote(s string) bool {
	start := true
	for i := 0; i < len(s); i++ {
		if start && strings.IndexByte(csvFormulaStart, s[i]) >= 0 {
			return true
		}
		start = nextStart(start, s[i])
	}
	return false
}

// nextStart says whether a reader may begin a cell after c: after a
// splitter, or after spaces where it could already.
func nextStart(start bool, c byte) bool {
	switch {
	case strings.IndexByte(csvSplitters, c) >= 0:
		return true
	case c == ' ':
		return start
	}
	return false
}
