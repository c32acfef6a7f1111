// Command bench is `make bench`: a reproducible benchmark of the seckill
// server against baselines measured in the same run.
//
//	bench [run] [flags]   run the benchmark and print the report
//	bench floor|ceiling   serve a baseline (the benchmark starts these itself)
//
// `bench -h` lists the flags; each has a BENCH_* environment default.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/seckill/seckill/cmd/bench/internal/runner"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := runner.Main(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
