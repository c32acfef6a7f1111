package orderfeed_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/orderfeed"
	"github.com/seckill/seckill/internal/testenv"
)

// TestAnnounceWakesFollowersOnEveryServer: two feeds on one Redis stand for
// two servers. An order changed on one wakes the stream following it on the
// other, and only that order's followers.
func TestAnnounceWakesFollowersOnEveryServer(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	channel := prefix + ":orders-changed"
	here, there := orderfeed.New(rdb, channel, log), orderfeed.New(rdb, channel, log)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go here.Run(ctx)
	go there.Run(ctx)

	mine, stopMine := here.Follow("order-1")
	defer stopMine()
	other, stopOther := here.Follow("order-2")
	defer stopOther()
	// A subscription starts asynchronously; announce until one lands.
	woken := testenv.Eventually(5*time.Second, func() bool {
		there.Announce(ctx, []string{"order-1", "order-3"})
		select {
		case <-mine:
			return true
		case <-time.After(50 * time.Millisecond):
			return false
		}
	})
	if !woken {
		t.Fatal("a follower of order-1 was not woken by the other server's announcement")
	}
	select {
	case <-other:
		t.Fatal("order-2's follower was woken by an announcement of other orders")
	default:
	}
}

func TestUnfollowForgetsTheOrder(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	f := orderfeed.New(rdb, prefix+":orders-changed", slog.New(slog.NewTextHandler(io.Discard, nil)))
	_, stopA := f.Follow("order-1")
	_, stopB := f.Follow("order-1")
	if f.Followed() != 1 {
		t.Fatalf("followed %d orders, want 1", f.Followed())
	}
	stopA()
	if f.Followed() != 1 {
		t.Fatal("the order was forgotten while a stream still follows it")
	}
	stopB()
	if f.Followed() != 0 {
		t.Fatal("the order is still followed after its last stream left: the map would grow with every order")
	}
}
