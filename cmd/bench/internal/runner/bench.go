// Package runner is `make bench`: it drives the real seckill server with wrk
// and a paced generator, and reports each figure as a ratio to a baseline it
// builds and measures itself in the same run (a bare Gin handler doing one
// Redis round trip, one returning constant JSON, a plain batched INSERT).
// Absolute figures on a 2-core machine swing by a third between sessions;
// ratios of medians from alternating runs in one session do not.
//
// It runs the measures in order and owns the processes (cmd/bench itself as
// the baselines, the seckill binary under test); wrk, machine, persist,
// baseline and report beside it do one job each.
package runner

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/seckill/seckill/cmd/bench/internal/baseline"
)

// Main runs the subcommand in args, the report going to stdout and progress
// to stderr: "floor" or "ceiling" (a baseline
// server, started by the benchmark itself), or "run", the default.
func Main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "run"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "floor", "ceiling":
		return baseline.Serve(ctx, cmd, args)
	case "run":
		cfg, err := ParseConfig(args, getenv)
		if err != nil {
			return err
		}
		return Run(ctx, cfg, stdout, stderr)
	}
	return fmt.Errorf("unknown command %q: want run, floor or ceiling", cmd)
}
