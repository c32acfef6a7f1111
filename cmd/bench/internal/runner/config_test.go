package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
)

func TestParseConfigDefaultsEnvAndFlags(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig(nil, testenv.Getenv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Rounds != 3 || c.Duration != 8*time.Second || c.Connections != 128 || c.Threads != 2 ||
		c.PersistOrders != 100000 || c.ManyConns != 10000 || c.Docs != "" || len(c.Only) != 0 {
		t.Errorf("defaults = %+v", c)
	}
	if !c.Wants("drop") || !c.Wants("purchase") || !c.Wants("pages") {
		t.Error("a default run leaves out the drop, the purchase or the pages rows")
	}
	if c.HeldPages != 1000 || c.Followers != 2000 || c.HeldFor != 5*time.Second {
		t.Errorf("pages defaults = %d held, %d followers, %s alone", c.HeldPages, c.Followers, c.HeldFor)
	}
	if c, err = ParseConfig([]string{"-only", "pages", "-follow-shoppers", "50"}, testenv.Getenv(map[string]string{"BENCH_HELD_PAGES": "20"})); err != nil ||
		!c.Wants("pages") || c.Wants("purchase") || c.HeldPages != 20 || c.Followers != 50 {
		t.Errorf("-only pages: %+v, %v", c, err)
	}
	if s := settingsOf(c, 0); s.HeldPages != 20 || s.FollowShoppers != 50 || s.FollowSpread != "1s" {
		t.Errorf("settings of a pages run: %+v", s)
	}
	// The environment sets defaults; flags still win.
	c, err = ParseConfig([]string{"-duration", "5s", "-docs", "docs/benchmarks.md"},
		testenv.Getenv(map[string]string{"BENCH_ROUNDS": "1", "BENCH_DURATION": "3s", "BENCH_ONLY": "purchase, persist"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Rounds != 1 || c.Duration != 5*time.Second || c.Docs != "docs/benchmarks.md" {
		t.Errorf("env and flags = %+v", c)
	}
	if !c.Wants("persist") || c.Wants("latency") || c.Wants("scaleout") || c.Wants("drop") {
		t.Errorf("Only = %v: Wants is wrong", c.Only)
	}
	if c, err = ParseConfig([]string{"-only", "scaleout"}, testenv.Getenv(nil)); err != nil || !c.Wants("scaleout") || c.Wants("purchase") {
		t.Errorf("-only scaleout: %+v, %v", c.Only, err)
	}
	// The drop row runs alone or beside the one-variant row it is compared with.
	if c, err = ParseConfig([]string{"-only", "purchase,drop"}, testenv.Getenv(nil)); err != nil || !c.Wants("drop") || !c.Wants("purchase") || c.Wants("soldout") {
		t.Errorf("-only purchase,drop: %+v, %v", c.Only, err)
	}
	if s := settingsOf(c, 0); len(s.DropDemand) != len(dropSizes) {
		t.Errorf("settings of a run with the drop: demand %v, want a share per size", s.DropDemand)
	}
	if c, err = ParseConfig([]string{"-only", "purchase"}, testenv.Getenv(nil)); err != nil || c.Wants("drop") || settingsOf(c, 0).DropDemand != nil {
		t.Errorf("-only purchase: %+v, %v: want no drop", c.Only, err)
	}
}

func TestParseConfigRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"bad env number", nil, map[string]string{"BENCH_ROUNDS": "three"}, "BENCH_ROUNDS"},
		{"bad env duration", nil, map[string]string{"BENCH_DURATION": "8"}, "BENCH_DURATION"},
		{"no rounds", []string{"-rounds", "0"}, nil, "-rounds"},
		{"too short", []string{"-duration", "100ms"}, nil, "at least 1s"},
		{"unknown measure", []string{"-only", "purchase,speed"}, nil, `"speed"`},
		{"no held pages", []string{"-held-pages", "0"}, nil, "-held-pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseConfig(tt.args, testenv.Getenv(tt.env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one naming %s", err, tt.want)
			}
		})
	}
}
