package report

import "testing"

func TestMedian(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{9, 1, 5}, 5},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		in := append([]float64(nil), tt.in...)
		if got := Median(tt.in); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.in, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.in[i] {
				t.Fatalf("Median reordered its input: %v", tt.in)
			}
		}
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 43718.86: "43,719", 1234567: "1,234,567", -2500: "-2,500"} {
		if got := Thousands(in); got != want {
			t.Errorf("Thousands(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestMix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   map[string]int64
		want string
	}{
		{map[string]int64{"reserved": 5000}, "reserved 100%"},
		{map[string]int64{"marked_sold_out": 9900, "gated_sold_out": 98, "gated_unavailable": 2},
			"marked_sold_out 99%, gated_sold_out 1%, gated_unavailable 0.02%"},
		// A near-total is never rounded up to 100% beside a minority.
		{map[string]int64{"reserved": 99999, "already_purchased": 1}, "reserved 99.999%, already_purchased 0.001%"},
		{map[string]int64{}, "no answers counted"},
	}
	for _, tt := range tests {
		if got := Mix(tt.in); got != tt.want {
			t.Errorf("Mix(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCPUSpentPer1000(t *testing.T) {
	t.Parallel()
	if p := (CPUSpent{Servers: 3, Machine: 6}).per1000(2000); p.Servers != 1.5 || p.Machine != 3 {
		t.Errorf("per1000 = %+v", p)
	}
}
