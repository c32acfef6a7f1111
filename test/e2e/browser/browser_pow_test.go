package browser

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestBrowserProofOfWork: the sale page joins a waiting room by solving the
// server's challenge in a Web Worker, at the default difficulty, saying it
// is getting ready meanwhile; the server lets the shopper in on the proof
// the page sent, and spends it.
//
// Serial, like every browser test: see browser_test.go.
func TestBrowserProofOfWork(t *testing.T) {
	clk := &e2etest.LiveClock{}
	s := e2etest.Start(t, clk, func(c *config.Config) { c.PurchaseTokens = true; c.PoWDifficulty = config.DefaultPoWDifficulty })
	id := e2etest.RoomSale(t, s, 5, 1, clk.Now().Add(time.Hour))
	b := newTab(t, s)
	b.signInAt("pat")

	// The page's challenge request is held until the page getting ready
	// has been photographed: a solve is too quick to catch otherwise.
	held := make(chan fetch.RequestID, 4)
	if err := chromedp.Listen(b.ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			held <- e.RequestID
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(b.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/challenge"}}}); err != nil {
		t.Fatal(err)
	}
	b.open("/sale/" + e2etest.Itoa(id))
	var req fetch.RequestID
	select {
	case req = <-held:
	case <-time.After(10 * time.Second):
		b.shot("failed")
		t.Fatal("the page asked for no challenge")
	}
	b.until(`document.querySelector('#room').dataset.state === 'preparing'`, 5*time.Second)
	if head := b.text("#room-headline"); !strings.Contains(head, "Getting ready") {
		t.Fatalf("while solving the room says %q", head)
	}
	b.shot("getting-ready")
	b.do(chromedp.EmulateViewport(390, 844))
	b.shot("getting-ready-phone")
	b.do(chromedp.EmulateViewport(1280, 900))

	released := time.Now()
	if _, err := chromedp.Call(b.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: req}); err != nil {
		t.Fatal(err)
	}
	b.until(`document.querySelector('#room').dataset.state === 'waiting'`, 30*time.Second)
	t.Logf("challenge fetched, solved at %d bits and the room joined in %v", config.DefaultPoWDifficulty, time.Since(released).Round(time.Millisecond))
	if st := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id)+"/room", e2etest.MintToken(t, "pat"), nil); st.Str("state") != "waiting" || st.Body["joined"] != true {
		t.Fatalf("the page says waiting; the server says %s", st.Raw)
	}
	// The server spent the proof the page sent: one mark under the sale.
	rdb := redis.NewClient(&redis.Options{Addr: s.Cfg.Redis.Addr})
	defer rdb.Close()
	spent, err := rdb.Keys(context.Background(), keyspace.New(s.Cfg.RedisPrefix).Item(id).SpentChallenge("*")).Result()
	if err != nil || len(spent) != 1 {
		t.Fatalf("spent challenges: %v, %v; want one", spent, err)
	}
	b.shot("joined")
	b.do(chromedp.EmulateViewport(390, 844))
	b.shot("joined-phone")
	b.do(chromedp.EmulateViewport(1280, 900))
}
