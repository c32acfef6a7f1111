# Developer entry points. `make` alone lists the targets.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

GO  ?= go
BIN := bin/seckill

# Same overrides as scripts/services.sh, so tests hit what it provisioned.
SECKILL_DB_HOST     ?= 127.0.0.1
SECKILL_DB_PORT     ?= 3306
SECKILL_DB_USER     ?= seckill
SECKILL_DB_PASSWORD ?= seckill
SECKILL_REDIS_HOST  ?= 127.0.0.1
SECKILL_REDIS_PORT  ?= 6379

# Values already in the environment win (?=). The test DSN has no database:
# each test creates and drops its own seckill_test_* database.
SECKILL_TEST_MYSQL_DSN  ?= $(SECKILL_DB_USER):$(SECKILL_DB_PASSWORD)@tcp($(SECKILL_DB_HOST):$(SECKILL_DB_PORT))/?parseTime=true&loc=UTC
SECKILL_TEST_REDIS_ADDR ?= $(SECKILL_REDIS_HOST):$(SECKILL_REDIS_PORT)
# Seed addresses of a Redis Cluster for the cluster tests; empty: make test starts one.
SECKILL_TEST_REDIS_CLUSTER ?=
# Only exported to `run`/`migrate`, so config tests still see a clean env.
RUN_MYSQL_DSN  := $(SECKILL_DB_USER):$(SECKILL_DB_PASSWORD)@tcp($(SECKILL_DB_HOST):$(SECKILL_DB_PORT))/seckill?parseTime=true&loc=UTC
RUN_REDIS_ADDR := $(SECKILL_REDIS_HOST):$(SECKILL_REDIS_PORT)

# Loads dev secrets and the service addresses into a recipe's shell.
load_env = eval "$$(scripts/dev-env.sh)"; \
	export SECKILL_MYSQL_DSN="$${SECKILL_MYSQL_DSN:-$(RUN_MYSQL_DSN)}" \
	SECKILL_REDIS_ADDR="$${SECKILL_REDIS_ADDR:-$(RUN_REDIS_ADDR)}"

# Every .go file outside vendor directories.
GO_FILES = find . -name '*.go' -not -path '*/vendor/*' -not -path './.git/*' -print0

.PHONY: help services chromium cluster check-alerts build run test migrate seed fmt fmt-check vet clean web-vendor fuzz k6 k6-flash k6-drop k6-room k6-ci k6-browse k6-soak bench

help: ## List targets
	@echo "Targets:"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

services: ## Make MySQL/MariaDB and Redis available (scripts/services.sh)
	@scripts/services.sh

chromium: ## Install Chromium for the browser tests if missing (scripts/chromium.sh)
	@scripts/chromium.sh

# && on top of SHELLFLAGS' -e, so the target fails on any step (and never runs
# "" check rules after a failed install) even under make SHELLFLAGS=-c.
check-alerts: ## Check the Prometheus alert rules and run their unit tests (installs promtool into bin/ if missing)
	@promtool="$$(scripts/promtool.sh)" && \
	"$$promtool" check rules deploy/prometheus/alerts.yml && \
	"$$promtool" test rules deploy/prometheus/alerts_test.yml

build: ## Build bin/seckill
	$(GO) build -o $(BIN) ./cmd/server

run: services build ## Start services, migrate, seed and serve on :8080
	@$(load_env); \
	addr="$${SECKILL_HTTP_ADDR:-:8080}"; port="$${addr##*:}"; \
	echo "=================================================================="; \
	echo " seckill dev server:  http://localhost:$$port"; \
	echo " admin token:         $$SECKILL_ADMIN_TOKEN"; \
	echo " (stored in .seckill-dev.env; delete it to rotate)"; \
	echo " try:  curl -H \"Authorization: Bearer $$SECKILL_ADMIN_TOKEN\" localhost:$$port/api/v1/admin/items/1/stats"; \
	echo "=================================================================="; \
	export SECKILL_DEMO_PAYMENTS="$${SECKILL_DEMO_PAYMENTS:-true}"; \
	$(BIN) migrate && $(BIN) seed && exec $(BIN) serve

migrate: services build ## Apply database migrations
	@$(load_env); $(BIN) migrate

seed: services build ## Create the demo sales if missing
	@$(load_env); $(BIN) seed

test: services chromium fmt-check vet ## gofmt check, go vet, then all tests (browser, cluster and fault tests too) with -race
	@cluster='$(SECKILL_TEST_REDIS_CLUSTER)'; [ -n "$$cluster" ] || cluster=$$(scripts/redis-cluster.sh start); \
	echo "go test against MySQL $(SECKILL_DB_HOST):$(SECKILL_DB_PORT), Redis $(SECKILL_TEST_REDIS_ADDR), Redis Cluster $$cluster"; \
	SECKILL_TEST_MYSQL_DSN='$(SECKILL_TEST_MYSQL_DSN)' SECKILL_TEST_REDIS_ADDR='$(SECKILL_TEST_REDIS_ADDR)' \
		SECKILL_TEST_REDIS_CLUSTER="$$cluster" $(GO) test -race -count=1 -timeout 15m ./...

cluster: ## Start a local 3-master Redis Cluster (scripts/redis-cluster.sh) and print its addresses
	@scripts/redis-cluster.sh start

fmt-check: ## Fail listing any file gofmt would change
	@files="$$($(GO_FILES) | xargs -0 -r gofmt -l)"; \
	if [ -n "$$files" ]; then echo "gofmt needed on (run make fmt):"; echo "$$files"; exit 1; fi

fmt: ## gofmt -w every Go file
	@$(GO_FILES) | xargs -0 -r gofmt -l -w

vet: ## go vet ./...
	$(GO) vet ./...

clean: ## Remove bin/
	rm -rf bin/

fuzz: services ## Run every fuzz target briefly (FUZZTIME per target, default 10s)
	scripts/fuzz.sh

K6_VERSION := v1.8.1
K6 = $(shell command -v k6 2>/dev/null || echo bin/k6)

k6: ## Install the pinned k6 into bin/ unless one is on the PATH (a few minutes the first time)
	@command -v k6 >/dev/null 2>&1 || [ -x bin/k6 ] || GOBIN=$(CURDIR)/bin $(GO) install go.k6.io/k6@$(K6_VERSION)

k6-flash: k6 ## Rehearse a flash sale against BASE_URL (default the make run server)
	@$(load_env); ADMIN_TOKEN="$$SECKILL_ADMIN_TOKEN" JWT_SECRET="$$SECKILL_JWT_SECRET" $(K6) run loadtest/flash_sale.js

k6-drop: k6 ## Rehearse a drop of ten sizes with skewed demand against BASE_URL (DROP=1 flash_sale.js)
	@$(load_env); DROP=1 ADMIN_TOKEN="$$SECKILL_ADMIN_TOKEN" JWT_SECRET="$$SECKILL_JWT_SECRET" $(K6) run loadtest/flash_sale.js

k6-ci: services k6 build ## A short k6 flash sale, drop and waiting room against a throwaway server (CI runs it)
	scripts/k6-ci.sh

k6-room: k6 ## A sale behind a waiting room against BASE_URL (default the make run server)
	@$(load_env); ADMIN_TOKEN="$$SECKILL_ADMIN_TOKEN" JWT_SECRET="$$SECKILL_JWT_SECRET" $(K6) run loadtest/waiting_room.js

k6-browse: k6 ## Browse at a constant arrival rate
	$(K6) run loadtest/browse.js

k6-soak: k6 ## Mixed traffic for an hour (SHORT=1: 30 s)
	@$(load_env); ADMIN_TOKEN="$$SECKILL_ADMIN_TOKEN" JWT_SECRET="$$SECKILL_JWT_SECRET" $(K6) run loadtest/soak.js

# The benchmark creates and drops its own seckill_bench_* databases and
# seckill-bench-* Redis keys on these servers; the DSN names no database.
BENCH_MYSQL_DSN  ?= $(SECKILL_DB_USER):$(SECKILL_DB_PASSWORD)@tcp($(SECKILL_DB_HOST):$(SECKILL_DB_PORT))/?parseTime=true&loc=UTC
BENCH_REDIS_ADDR ?= $(RUN_REDIS_ADDR)

bench: services chromium build ## Run the benchmark (a few minutes); writes docs/benchmarks.md
	$(GO) build -o bin/bench ./cmd/bench
	scripts/wrk.sh
	bin/bench -mysql '$(BENCH_MYSQL_DSN)' -redis '$(BENCH_REDIS_ADDR)' -seckill $(BIN) -docs docs/benchmarks.md

web-vendor: ## Vendor the pinned browser libraries into web/static/vendor (needs npm)
	scripts/vendor-web.sh
