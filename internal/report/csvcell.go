package report

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
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
// CR, LF), a formula character ("=", "+", "-", "@", tab, CR, or the
// full-width ＝＋－＠ some spreadsheets take for them), even after blanks
// (spaces, no-break and ideographic spaces, and double quotes, which a
// reader splitting on ";" inside a quoted cell leaves around its pieces),
// gets a single quote before it, which a spreadsheet shows as text. A user
// id like "-x", a label like "=HYPERLINK(...)", "x;=cmd()" or `a";"=1`
// would otherwise run when the file is opened.
func csvText(s string) string {
	if !csvNeedsQuote(s) {
		return s // most cells: the export allocates nothing for them
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	start := true
	for i := 0; i < len(s); {
		c, n := utf8.DecodeRuneInString(s[i:])
		if start && formulaStart(c) {
			b.WriteByte('\'')
		}
		b.WriteString(s[i : i+n]) // the bytes as they were, even invalid ones
		start = nextStart(start, c)
		i += n
	}
	return b.String()
}

const (
	csvFormulaStart = "=+-@\t\r\uff1d\uff0b\uff0d\uff20"
	csvSplitters    = ",;\t\r\n"
	csvBlanks       = " \"\u00a0\u3000"
)

// formulaStart says whether a cell starting with c is taken for a formula.
func formulaStart(c rune) bool {
	return c != utf8.RuneError && strings.ContainsRune(csvFormulaStart, c)
}

// csvNeedsQuote says whether csvText would change s.
func csvNeedsQuote(s string) bool {
	start := true
	for _, c := range s {
		if start && formulaStart(c) {
			return true
		}
		start = nextStart(start, c)
	}
	return false
}

// nextStart says whether a reader may begin a cell after c: after a
// splitter, or after blanks where it could already.
func nextStart(start bool, c rune) bool {
	switch {
	case c == utf8.RuneError:
		return false
	case strings.ContainsRune(csvSplitters, c):
		return true
	case strings.ContainsRune(csvBlanks, c):
		return start
	}
	return false
}
