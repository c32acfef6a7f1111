package purchase

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestStalledBodyIsCutOff: a client that sends its headers and a tenth of
// its body, then stalls, is answered 408 request_timeout and its connection
// closed once the body deadline passes, while an event stream opened at the
// same time goes on delivering well past that deadline.
func TestStalledBodyIsCutOff(t *testing.T) {
	t.Parallel()
	const deadline = 500 * time.Millisecond
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), func(c *config.Config) { c.BodyTimeout = deadline })
	stream := openStream(t, s, "/api/v1/admin/events", e2etest.AdminToken)
	opened := time.Now()

	conn, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sent := time.Now()
	fmt.Fprintf(conn, "POST /api/v1/session HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"user_id\"", s.Addr)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // the test's own bound, far above the server's
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to the stalled body: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	took := time.Since(sent)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), `"code":"request_timeout"`) {
		t.Fatalf("stalled body: %d %s, want 408 request_timeout", resp.StatusCode, body)
	}
	if took < deadline || took > deadline+3*time.Second {
		t.Fatalf("answered after %v, want just after the %v deadline", took, deadline)
	}
	if n, err := conn.Read(make([]byte, 1)); err == nil {
		t.Fatalf("connection still open after the 408 (read %d bytes)", n)
	}

	// The stream outlives the deadline several times over: snapshots keep
	// coming, once a second.
	events := bufio.NewScanner(stream.Body)
	for events.Scan() {
		if events.Text() == "event: stats" && time.Since(opened) > 3*deadline {
			break
		}
	}
	if err := events.Err(); err != nil || time.Since(opened) <= 3*deadline {
		t.Fatalf("stream ended %v after it opened (%v), want it alive past %v", time.Since(opened), err, 3*deadline)
	}
}
