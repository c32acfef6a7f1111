package wrk

import (
	"strconv"
	"testing"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		threads, conns, n int
		want              []Part
	}{
		{2, 128, 1, []Part{{2, 128, 0}}},
		{2, 128, 2, []Part{{1, 64, 0}, {1, 64, 1}}},
		{3, 7, 2, []Part{{2, 4, 0}, {1, 3, 2}}},
		{4, 10, 3, []Part{{2, 4, 0}, {1, 3, 2}, {1, 3, 3}}},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.threads)+"x"+strconv.Itoa(tt.conns)+"/"+strconv.Itoa(tt.n), func(t *testing.T) {
			t.Parallel()
			got := Split(tt.threads, tt.conns, tt.n)
			if len(got) != len(tt.want) {
				t.Fatalf("Split = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("part %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
