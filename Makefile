# couplet build entry points. `make demo` and `make test` work on a fresh machine.
SHELL := /bin/bash
GO    ?= go
PKGS  := libopenmpi-dev openmpi-bin libucx-dev libpnetcdf-dev pnetcdf-bin libnetcdf-dev netcdf-bin etcd-server etcd-client pkg-config gfortran g++ python3-pytest python3-pip python3-setuptools iproute2 util-linux
BIN   := $(CURDIR)/bin

# mpirun flags this platform needs (root, more ranks than cores, fast shared memory).
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

.PHONY: deps build test cluster-test cluster-bench check-tree demo demo-file demo-dyad bench lint fuzz clean

deps:
	@missing=""; \
	for p in ompi-c ucx pnetcdf; do pkg-config --exists $$p 2>/dev/null || missing="$$missing $$p"; done; \
	for c in mpirun ncmpidump ncvalidator ncdump etcd etcdctl gfortran g++ ip setpriv nsenter unshare; do command -v $$c >/dev/null 2>&1 || missing="$$missing $$c"; done; \
	/usr/bin/python3 -c "import pytest" >/dev/null 2>&1 || missing="$$missing python3-pytest"; \
	/usr/bin/python3 -c "import setuptools, pip" >/dev/null 2>&1 || missing="$$missing python3-pip python3-setuptools"; \
	if [ -z "$$missing" ]; then echo "deps: all present"; exit 0; fi; \
	echo "deps: missing:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "deps: installing with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(PKGS) >/dev/null; \
	else \
	  echo "deps: run as root:  sudo apt-get update && sudo apt-get install -y $(PKGS)"; exit 1; \
	fi

# A virtual cluster of three namespace nodes (own network stack, hostname,
# /tmp) on a bridge, Open MPI across them, a 3-member etcd, an agent per node,
# and faults; needs root (it skips otherwise). cluster/cluster_test.go.
cluster-test: deps
	@log=$$(mktemp); set -o pipefail; \
	COUPLET_CLUSTER=1 $(GO) test -count=1 -timeout 15m -v -run '^TestCluster$$' ./cluster/ 2>&1 | tee $$log; \
	rc=$$?; [ $$rc -eq 0 ] || .ci/failed-cases $$log; rm -f $$log; exit $$rc

# The same, writing its benchmark numbers into docs/PERFORMANCE.md.
cluster-bench: deps
	COUPLET_CLUSTER_PERF=$(CURDIR)/docs/PERFORMANCE.md $(MAKE) --no-print-directory cluster-test

# No tracked file over 1 MiB and no tracked ELF binary.
check-tree:
	@.ci/check-tree

build: deps
	$(GO) build ./...
	$(GO) build -o $(BIN)/couplet ./cmd/couplet

test: deps
	$(GO) vet ./...
	$(GO) test -timeout 40m ./...

# The coupled heat -> analyze job in transfer mode, replaying every step file's
# schedule but the first; it keeps its dtf statistics in DEMO_STATS and ends with
# their table (`couplet stats`): the hit epochs record no matching time.
DEMO_STATS ?= $(BIN)/demo-stats.jsonl
demo: deps
	$(GO) run ./examples/demo -stats $(DEMO_STATS)
	@echo "demo: couplet stats $(DEMO_STATS)"
	@$(GO) run ./cmd/couplet stats $(DEMO_STATS)

demo-file: deps
	$(GO) run ./examples/demo -mode file

demo-dyad: deps
	$(GO) run ./examples/dyad/demo

bench: deps
	$(GO) run ./cmd/couplet bench --reps 7 --launches 3

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Runs every fuzz target for FUZZTIME (default 60s) each; crashers land in testdata/fuzz.
fuzz:
	@set -e; for d in $$(grep -rl '^func Fuzz' --include='*_test.go' . | xargs -n1 dirname | sort -u); do \
	  for f in $$(grep -h '^func Fuzz' $$d/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do \
	    echo "fuzz: $$d $$f ($${FUZZTIME:-60s})"; \
	    $(GO) test $$d -run '^$$' -fuzz "^$$f$$" -fuzztime $${FUZZTIME:-60s}; \
	  done; \
	done

clean:
	rm -rf $(BIN)

# Fault, bad-input and load tests with their figures (-v), the long soak
# (SOAK_CYCLES, default 200), then every fuzz target for FUZZTIME each.
# docs/RELIABILITY.md lists what each test shows.
reliability: deps
	COUPLET_RELIABILITY=1 $(GO) test -count=1 -timeout 30m -v -run 'Fault|LoadMany|LoadReplaySoak|CoupledBadInput|ErrorCodes|ConfigErrors|ApplyEnvErrors|UncoveredRead|Soak200' ./dtf ./pnetcdf ./examples/letkf
	COUPLET_RELIABILITY=1 $(GO) test -count=1 -timeout 30m -v -run 'Load64|Load1000|AgentSurvives|HostileOwner|DiskFull|AgentRestart|KillProducer|CrashedStaging|PathConfinement|TokenRequired|ConsumeTimesOut' ./dyad
	FUZZTIME=$${FUZZTIME:-60s} $(MAKE) --no-print-directory fuzz

# libcouplet.so: the PnetCDF-compatible C library (capi/pnetcdf.h is its header).
# libcouplet-dyad.so: DYAD's open/close interception (LD_PRELOAD) and C client API,
# plain C (capi/dyad; headers under capi/dyad/include; flags as in capi/dyad/build.go).
.PHONY: capi
capi: deps
	$(GO) build -buildmode=c-shared -o $(BIN)/libcouplet.so ./capi
	$${CC:-cc} -O2 -g -Wall -Wextra -Werror -std=gnu11 -fPIC -fvisibility=hidden -shared \
	  -Icapi/dyad/include -o $(BIN)/libcouplet-dyad.so capi/dyad/src/*.c -lpthread
