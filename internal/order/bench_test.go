package order_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/webhook"
)

// BenchmarkPersist writes orders to MySQL in batches of the size given,
// as the stream workers do; ns/op is per order, so sizes compare directly.
// When the MySQL server runs on this machine, mysql-µs/order is the CPU it
// spent per order (its whole process: on a shared server, others' work too).
func BenchmarkPersist(b *testing.B) {
	for _, size := range []int{1, 50, 100, 200, 500} {
		b.Run("batch="+strconv.Itoa(size), func(b *testing.B) { benchPersist(b, size, false) })
	}
}

// BenchmarkPersistWithEvents is BenchmarkPersist at the workers' batch size
// with the outbox off and on (one endpoint): what announcing every order in
// its own transaction costs per order.
func BenchmarkPersistWithEvents(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run("events="+strconv.FormatBool(on), func(b *testing.B) { benchPersist(b, 500, on) })
	}
}

func benchPersist(b *testing.B, size int, events bool) {
	orders, items, it, db := setup(b, 10_000_000)
	if events {
		orders.UseOutbox(webhook.NewWriter([]string{"http://127.0.0.1:9/hooks"}, time.Now, 0))
	}
	variant := onlyVariant(b, items, it.ID)
	ctx := context.Background()
	batch := make([]keyspace.Entry, 0, size)
	n := 0
	flush := func() {
		if _, err := orders.Persist(ctx, batch); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	cpu := serverCPU(db)
	cpu0 := cpu()
	b.ResetTimer()
	for b.Loop() {
		n++
		id := "bench-" + strconv.Itoa(n)
		batch = append(batch, keyspace.Entry{StreamID: "1700000000000-" + strconv.Itoa(n), OrderID: id,
			ItemID: it.ID, VariantID: variant, UserID: "u" + strconv.Itoa(n), Quantity: 1, CreatedAt: t0})
		if len(batch) == size {
			flush()
		}
	}
	if len(batch) > 0 {
		flush()
	}
	if spent := cpu() - cpu0; spent > 0 {
		b.ReportMetric(1e6*spent/float64(n), "mysql-µs/order")
	}
}

func onlyVariant(b *testing.B, items *catalog.Store, id int64) int64 {
	it, err := items.Get(context.Background(), id)
	if err != nil || len(it.Variants) != 1 {
		b.Fatalf("sale %d: %v", id, err)
	}
	return it.Variants[0].ID
}

// serverCPU returns a reader of the MySQL server's CPU seconds, found by
// its pid file; it reads 0 when the server is not on this machine.
func serverCPU(db *gorm.DB) func() float64 {
	var file string
	if db.Raw("SELECT @@pid_file").Scan(&file).Error != nil {
		return func() float64 { return 0 }
	}
	pid, _ := os.ReadFile(file)
	stat := "/proc/" + strings.TrimSpace(string(pid)) + "/stat"
	return func() float64 {
		b, err := os.ReadFile(stat)
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if err != nil || i < 0 {
			return 0
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 13 {
			return 0
		}
		ut, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		return (ut + st) / 100 // USER_HZ
	}
}
