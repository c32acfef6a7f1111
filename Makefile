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
# Only exported to `run`/`migrate`, so config tests still see a clean env.
RUN_MYSQL_DSN  := $(SECKILL_DB_USER):$(SECKILL_DB_PASSWORD)@tcp($(SECKILL_DB_HOST):$(SECKILL_DB_PORT))/seckill?parseTime=true&loc=UTC
RUN_REDIS_ADDR := $(SECKILL_REDIS_HOST):$(SECKILL_REDIS_PORT)

# Loads dev secrets and the service addresses into a recipe's shell.
load_env = eval "$$(scripts/dev-env.sh)"; \
	export SECKILL_MYSQL_DSN="$${SECKILL_MYSQL_DSN:-$(RUN_MYSQL_DSN)}" \
	SECKILL_REDIS_ADDR="$${SECKILL_REDIS_ADDR:-$(RUN_REDIS_ADDR)}"

# Every .go file outside vendor directories.
GO_FILES = find . -name '*.go' -not -path '*/vendor/*' -not -path './.git/*' -print0

.PHONY: help services chromium build run test migrate seed fmt fmt-check vet clean web-vendor fuzz

help: ## List targets
	@echo "Targets:"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

services: ## Make MySQL/MariaDB and Redis available (scripts/services.sh)
	@scripts/services.sh

chromium: ## Install Chromium for the browser tests if missing (scripts/chromium.sh)
	@scripts/chromium.sh

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
	$(BIN) migrate && $(BIN) seed && exec $(BIN) serve

migrate: services build ## Apply database migrations
	@$(load_env); $(BIN) migrate

seed: services build ## Create the demo sales if missing
	@$(load_env); $(BIN) seed

test: services chromium fmt-check vet ## gofmt check, go vet, then all tests (browser tests too) with -race
	SECKILL_TEST_MYSQL_DSN='$(SECKILL_TEST_MYSQL_DSN)' SECKILL_TEST_REDIS_ADDR='$(SECKILL_TEST_REDIS_ADDR)' \
		$(GO) test -race -count=1 -timeout 15m ./...

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

web-vendor: ## Vendor the pinned browser libraries into web/static/vendor (needs npm)
	scripts/vendor-web.sh
