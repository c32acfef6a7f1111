package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Median is the middle of xs (the mean of the two middle values for an even
// count), 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Ratio is a/b, 0 when b is 0.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Thousands formats n rounded to a whole number with comma separators.
func Thousands(n float64) string {
	s := strconv.FormatInt(int64(n+0.5*sign(n)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

// Mix describes outcome counts as shares, largest first:
// "gated_sold_out 99.9%, sold_out 0.1%".
func Mix(outcomes map[string]int64) string {
	var total int64
	keys := make([]string, 0, len(outcomes))
	for k, v := range outcomes {
		total += v
		keys = append(keys, k)
	}
	if total == 0 {
		return "no answers counted"
	}
	slices.SortFunc(keys, func(a, b string) int {
		if outcomes[a] != outcomes[b] {
			return int(outcomes[b] - outcomes[a])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %s%%", k, percent(float64(outcomes[k])/float64(total)))
	}
	return strings.Join(parts, ", ")
}

// percent shows a share with as many decimals as it takes not to round a
// small minority to 0% or a near-total to 100%.
func percent(share float64) string {
	p := share * 100
	for _, prec := range []int{0, 1, 2, 3} {
		s := strconv.FormatFloat(p, 'f', prec, 64)
		v, _ := strconv.ParseFloat(s, 64)
		if (v != 0 || p == 0) && (v != 100 || p == 100) {
			return s
		}
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

// SumOutcomes adds up outcome counts, optionally only those in keep.
func SumOutcomes(outcomes map[string]int64, keep ...string) int64 {
	var n int64
	for k, v := range outcomes {
		if len(keep) == 0 || slices.Contains(keep, k) {
			n += v
		}
	}
	return n
}
