# linkledger — build, test, benchmark, demo.
# mattn/go-sqlite3 must be built with FTS5: every target passes -tags sqlite_fts5.

GO      ?= go
TAGS    := sqlite_fts5
BIN     := bin
CMDS    := $(notdir $(wildcard cmd/*))
PREFIX  ?= $(HOME)/.local
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/linkledger/linkledger/lib/cli.Version=$(VERSION)

.PHONY: all setup build test vet bench reliability install demo eval-extraction eval-retrieval eval-brief clean

all: build

# setup installs the system packages linkledger uses (poppler-utils for PDF
# text). It is safe to run again; without root or apt it says what is missing.
setup:
	@scripts/setup.sh

# build says so before a build that must compile SQLite (mattn/go-sqlite3 not
# yet in the Go build cache: a fresh machine), which takes about 2 minutes.
build:
	@mkdir -p $(BIN)
	@[ "$$($(GO) list -tags $(TAGS) -f '{{.Stale}}' github.com/mattn/go-sqlite3 2>/dev/null)" = false ] || \
		echo "building (the first build compiles SQLite, about 2 minutes)..." >&2
	$(GO) build -tags $(TAGS) -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...

vet:
	@test -z "$$(gofmt -l cmd lib e2e scripts)" || { echo "gofmt needed:"; gofmt -l cmd lib e2e scripts; exit 1; }
	$(GO) vet -tags $(TAGS) ./...
	cd lib/stub/go-dateparser && $(GO) vet ./...

# test is the one test command (README, .ci/run).
test: setup vet
	$(GO) test -tags $(TAGS) -count=1 ./...
	cd lib/stub/go-dateparser && $(GO) test -count=1 ./...

bench: build
	@scripts/bench.sh

# reliability runs hostile inputs (a 20 MB word, 50 MB of text, a PDF that
# expands to 45 MB of text, 250,000 tags) through the filters and reports
# peak memory and time of each (docs/reliability.md). BASELINE=dir compares
# with older binaries.
reliability: build
	@scripts/reliability.sh

install:
	$(GO) install -tags $(TAGS) -ldflags '$(LDFLAGS)' ./cmd/...

demo: setup build
	@scripts/demo.sh

eval-extraction:
	@scripts/eval-extraction.sh

eval-retrieval: build
	@scripts/eval-retrieval.sh

# eval-brief: the share of SciFact train claims whose default brief holds a
# relevant document, and pack tokens, on both halves of train.
eval-brief:
	@scripts/eval-brief.sh

clean:
	rm -rf $(BIN)
