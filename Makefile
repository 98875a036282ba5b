# linkledger — build, test, benchmark, demo.
# mattn/go-sqlite3 must be built with FTS5: every target passes -tags sqlite_fts5.

GO      ?= go
TAGS    := sqlite_fts5
BIN     := bin
CMDS    := $(notdir $(wildcard cmd/*))
# install puts the binaries in $(PREFIX)/bin, the man pages in
# $(PREFIX)/share/man/man1 and the shell completion scripts where bash, zsh
# and fish look under $(PREFIX)/share. ~/.local/bin is on PATH on most
# systems; `make install PREFIX=/usr/local` (as root) installs system-wide.
PREFIX  ?= $(HOME)/.local
VERSION ?= $(shell cat VERSION)
COMMIT  ?= $(shell git rev-parse --short=7 HEAD 2>/dev/null)
LDFLAGS := -X github.com/linkledger/linkledger/lib/cli.Version=$(VERSION) -X github.com/linkledger/linkledger/lib/cli.Commit=$(COMMIT)
MANDIR  := $(BIN)/man

.PHONY: all setup build test vet bench reliability man completions install demo eval-extraction eval-structure eval-retrieval eval-brief eval-brief-evidence eval-judged-review clean

all: build

# setup installs the system packages linkledger uses (poppler-utils for PDF
# text) and builds Litestream at a pinned version into bin/ (copies by
# Litestream: docs/several-machines.md). It is safe to run again; without
# root or apt it says what is missing.
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
# test confines every fetch to loopback (LINKLEDGER_LOOPBACK_ONLY, docs/fetch.md):
# a real page's image on a public host is refused, never asked for.
test: setup vet
	LINKLEDGER_LOOPBACK_ONLY=1 $(GO) test -tags $(TAGS) -count=1 ./...
	cd lib/stub/go-dateparser && $(GO) test -count=1 ./...

bench: build
	@scripts/bench.sh

# reliability runs hostile inputs (a 20 MB word, 50 MB of text, a PDF that
# expands to 45 MB of text, 250,000 tags) through the filters and reports
# peak memory and time of each (docs/reliability.md). BASELINE=dir compares
# with older binaries.
reliability: build
	@scripts/reliability.sh

# man writes one page per binary (from the same definitions as --help:
# every binary has a hidden --man flag) into bin/man.
man: build
	@mkdir -p $(MANDIR)
	@for c in $(CMDS); do $(BIN)/$$c --man > $(MANDIR)/$$c.1 || exit 1; done
	@echo "man pages in $(MANDIR)"

completions: build
	@mkdir -p $(BIN)/completions
	$(BIN)/linkledger completion bash > $(BIN)/completions/linkledger.bash
	$(BIN)/linkledger completion zsh > $(BIN)/completions/_linkledger
	$(BIN)/linkledger completion fish > $(BIN)/completions/linkledger.fish

install: build man completions
	install -d $(PREFIX)/bin $(PREFIX)/share/man/man1 $(PREFIX)/share/bash-completion/completions \
		$(PREFIX)/share/zsh/site-functions $(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(addprefix $(BIN)/,$(CMDS)) $(PREFIX)/bin/
	install -m 644 $(MANDIR)/*.1 $(PREFIX)/share/man/man1/
	install -m 644 $(BIN)/completions/linkledger.bash $(PREFIX)/share/bash-completion/completions/linkledger
	install -m 644 $(BIN)/completions/_linkledger $(PREFIX)/share/zsh/site-functions/_linkledger
	install -m 644 $(BIN)/completions/linkledger.fish $(PREFIX)/share/fish/vendor_completions.d/linkledger.fish

demo: setup build
	@scripts/demo.sh

# fuzz runs every fuzz target in lib/ for FUZZTIME each (default 20s) and
# fails on a crasher (scripts/fuzz.sh, docs/fuzzing.md).
.PHONY: fuzz
fuzz:
	@scripts/fuzz.sh

eval-extraction:
	@scripts/eval-extraction.sh

# eval-structure: the share of the main content's headings, list items,
# code blocks, table cells and figures that ll-parse keeps in its Markdown
# (docs/parse.md "Structure").
eval-structure:
	@scripts/eval-structure.sh

# eval-retrieval: nDCG@10 and Recall@100 on SciFact train, per half; with
# EMBED_URL and EMBED_MODEL (EMBED_URL=fake: the test fake) also semantic
# and hybrid ranking (docs/retrieval.md).
eval-retrieval: build
	@EMBED_URL="$(EMBED_URL)" EMBED_MODEL="$(EMBED_MODEL)" scripts/eval-retrieval.sh

# eval-brief: the share of SciFact train claims whose default brief holds a
# relevant document, and pack tokens, on both halves of train; then the
# ranking's ceiling (relevant document in the top k) and nDCG@10 per half.
eval-brief:
	@scripts/eval-brief.sh

# eval-brief-evidence: does the default brief carry the evidence? SciFact
# train claims with their annotated rationale sentences, per half: present,
# carried, share of text on evidence, brief tokens (docs/retrieval.md).
eval-brief-evidence:
	@scripts/eval-brief-evidence.sh

# eval-judged-review: the default brief over MCP for each of the 40
# judged-review tasks, on 60 real pages served from loopback and ingested
# through the pipeline; writes docs/judged-review/briefs (a blind judge
# then follows docs/judged-review/judge-packet.md).
eval-judged-review:
	@python3 scripts/judged-review.py

clean:
	rm -rf $(BIN)
