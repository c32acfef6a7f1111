package runner

import (
	"os"
	"testing"

	"github.com/seckill/seckill/cmd/bench/internal/wrk"
)

// The parts of a split run must read every shopper file once between them:
// the two-instance side then sends the same shoppers as the one-instance
// side, none twice.
func TestShoppersInCoversEveryShopperOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ n, threads, parts int }{{11, 2, 2}, {11, 3, 2}, {540000, 2, 2}, {7, 4, 3}} {
		var sum int64
		for _, p := range wrk.Split(c.threads, c.threads*10, c.parts) {
			var want int64 // count the shoppers writeShopperFiles puts in p's files
			for i := 0; i < c.n; i++ {
				if f := i % c.threads; f >= p.First && f < p.First+p.Threads {
					want++
				}
			}
			if got := shoppersIn(c.n, c.threads, p); got != want {
				t.Errorf("%+v: shoppersIn(%+v) = %d, want %d", c, p, got, want)
			}
			sum += want
		}
		if sum != int64(c.n) {
			t.Errorf("%+v: the parts hold %d shoppers, want %d", c, sum, c.n)
		}
	}
}

func TestCPUMeterOnSelf(t *testing.T) {
	t.Parallel()
	m := cpuMeter{servers: []int{os.Getpid()}}
	c, err := m.spent(func() error {
		for x, n := 0, 0; n < 2e8; n++ { // about 0.1 s of CPU: several ticks of /proc's clock
			x += n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Servers <= 0 || c.Machine < c.Servers/2 || c.Redis != 0 || c.MySQL != 0 {
		t.Errorf("spent = %+v: want the process's time, the machine's at least about as much, no services", c)
	}
}
