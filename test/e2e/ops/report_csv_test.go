package ops

import (
	"bufio"
	"fmt"
	"net/http"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
	"gorm.io/gorm"
)

// TestOrdersCSVOfAMillionOrders exports a sale of 1,000,000 orders through
// the real handler: every order comes once, in order, after the header, and
// the heap stays under a fixed bound while about 100 MB of CSV goes by. Not
// parallel, so no other test's heap is measured with it.
func TestOrdersCSVOfAMillionOrders(t *testing.T) {
	const n, heapBound = 1_000_000, 64 << 20
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	id := s.Sale(t, 1, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	began := time.Now()
	// Ids sort as their numbers do, so the export's order says which
	// comes next; a cross join of six digit tables makes the rows in one
	// statement on MariaDB and MySQL alike.
	err := s.Db.Gorm.Transaction(func(tx *gorm.DB) error {
		// The rows are right by construction: checking each key as it goes
		// in only slows the test down.
		if err := tx.Exec("SET SESSION unique_checks = 0, foreign_key_checks = 0").Error; err != nil {
			return err
		}
		return tx.Exec(`INSERT INTO orders (id, item_id, variant_id, user_id, quantity, status, created_at)
		SELECT CONCAT('T', LPAD(seq, 25, '0')), ?, (SELECT id FROM variants WHERE item_id = ?), CONCAT('shopper', seq), 1,
			'confirmed', '2026-11-22 10:00:00.000' FROM (`+oneToMillion+`) s`, id, id).Error
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("inserted %d orders in %v", n, time.Since(began))

	var peak atomic.Uint64
	stop := sampleHeap(&peak)
	began = time.Now()
	lines, size := exportOrders(t, s, id, n)
	stop()
	t.Logf("exported %d lines (%d MB) in %v; heap peaked at %d MiB", lines, size>>20, time.Since(began), peak.Load()>>20)
	if lines != n+1 {
		t.Fatalf("%d lines, want %d", lines, n+1)
	}
	if peak.Load() > heapBound {
		t.Fatalf("heap reached %d MiB during the export, bound %d MiB", peak.Load()>>20, heapBound>>20)
	}
}

// oneToMillion selects seq = 1 to 1,000,000: six digit tables cross
// joined, each one decimal place of seq-1.
var oneToMillion = func() string {
	const digit = "(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4" +
		" UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)"
	sum, from := "1", ""
	for i, place := 0, 1; i < 6; i, place = i+1, place*10 {
		alias := fmt.Sprintf("p%d", i)
		sum += fmt.Sprintf(" + %d*%s.d", place, alias)
		from += fmt.Sprintf(", %s %s", digit, alias)
	}
	return "SELECT " + sum + " seq FROM " + from[2:]
}()

// exportOrders reads the CSV as it streams, checking each line's order id
// against the next one expected, and returns the lines and bytes read.
func exportOrders(t *testing.T, s *e2etest.Server, id int64, n int) (lines int, size int64) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.URL("/api/v1/admin/items/"+e2etest.Itoa(id)+"/orders.csv"), nil)
	req.Header.Set("Authorization", "Bearer "+e2etest.AdminToken)
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	wantDisp := fmt.Sprintf(`attachment; filename="sale-%d-orders.csv"`, id)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") ||
		resp.Header.Get("Content-Disposition") != wantDisp {
		t.Fatalf("export answered %d %v", resp.StatusCode, resp.Header)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		size += int64(len(line)) + 1
		if lines == 0 {
			if line != "order_id,user_id,variant_id,variant_label,quantity,status,cancel_reason,created_at,updated_at,paid_at,cancelled_at" {
				t.Fatalf("header %q", line)
			}
		} else if want := fmt.Sprintf(`"T%025d","shopper%d",`, lines, lines); !strings.HasPrefix(line, want) {
			t.Fatalf("line %d is %q, want it to start %q", lines, line, want)
		}
		lines++
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("after %d lines: %v", lines, err)
	}
	return lines, size
}

// sampleHeap records the largest heap in use (live and not yet swept
// objects) every few milliseconds until stopped.
func sampleHeap(peak *atomic.Uint64) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(finished)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
