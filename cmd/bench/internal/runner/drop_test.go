package runner

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The drop row's demand must look like a sneaker drop: most shoppers on the
// two middle sizes, every size wanted by someone, nothing left to chance.
func TestDropDemandIsSkewedToTheMiddle(t *testing.T) {
	t.Parallel()
	shares := dropDemand(len(dropSizes))
	var sum float64
	for i, s := range shares {
		sum += s
		if mirror := shares[len(shares)-1-i]; math.Abs(s-mirror) > 1e-12 {
			t.Errorf("share of %s %.4f, of %s %.4f: want the demand symmetric", dropSizes[i], s, dropSizes[len(shares)-1-i], mirror)
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("shares add up to %v, want 1", sum)
	}
	if middle := shares[4] + shares[5]; middle < 0.55 || middle > 0.65 {
		t.Errorf("EU 42 and EU 43 get %.3f of the shoppers, want about 0.6", middle)
	}

	counts := make([]int, len(shares))
	for i := range 1000 {
		counts[dropChoice(shares, i)]++
	}
	for p, n := range counts {
		// Ten blocks of 100 with the same mix: each size within a block's
		// rounding of its share, and none left without shoppers.
		if want := shares[p] * 1000; n == 0 || math.Abs(float64(n)-want) > 10 {
			t.Errorf("%s chosen by %d of 1,000 shoppers, want about %.0f", dropSizes[p], n, want)
		}
	}
	if got := counts[4] + counts[5]; got != 600 {
		t.Errorf("EU 42/43 chosen by %d of 1,000 shoppers, want 600", got)
	}
	// The report shows what the shoppers asked for.
	for p, m := range dropMix(len(dropSizes)) {
		if want := float64(counts[p]) / 1000; math.Abs(m-want) > 1e-9 {
			t.Errorf("dropMix says %s gets %.3f, the shoppers gave it %.3f", dropSizes[p], m, want)
		}
	}
}

// Lines carry the variant the shopper asks for only in a drop, so the
// one-variant purchase run sends what it always sent.
func TestShopperFilesCarryTheVariant(t *testing.T) {
	t.Parallel()
	shoppers, err := mintShoppers("0123456789abcdef0123456789abcdef", "s-", 5, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	read := func(name string, variant func(int) int64) [][]string {
		t.Helper()
		prefix := filepath.Join(dir, name)
		if err := writeShopperFiles(prefix, shoppers, 2, "secret-0123456789abcdef0123456789", 7, time.Hour, variant); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(prefix + ".0") // shoppers 0, 2 and 4
		if err != nil {
			t.Fatal(err)
		}
		var lines [][]string
		for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			lines = append(lines, strings.Split(l, " "))
		}
		return lines
	}
	for i, f := range read("plain", nil) {
		if len(f) != 2 || f[0] != shoppers[2*i].jwt {
			t.Errorf("one-variant line %d = %q, want the jwt of shopper %d and a purchase token", i, f, 2*i)
		}
	}
	for i, f := range read("drop", func(i int) int64 { return int64(100 + i) }) {
		if want := strconv.Itoa(100 + 2*i); len(f) != 3 || f[0] != shoppers[2*i].jwt || f[2] != want {
			t.Errorf("drop line %d = %q, want the jwt of shopper %d, a purchase token and variant %s", i, f, 2*i, want)
		}
	}
}
