# The two entry points of the README. Both are idempotent and install what
# they need first (scripts/setup.sh).
CONCUR := target/release/concur

.PHONY: setup build test bench verify
# Everything: the main job's needs and the tests' (Locust's virtual
# environment, wrk, ab, nginx, nftables, Chromium).
setup:
	scripts/setup.sh --test

# The main job's needs: its Debian packages, not the tests' (quick measures
# with concur load alone and opens no browser; Locust's install took 24 s of a
# fresh make bench, and Chromium is 81 MB to fetch).
build:
	scripts/setup.sh
	cargo build --release --locked

# Every test: the Rust crate, each implementation's own suite, and the
# verifier against every available implementation at 1 and 2 cores.
# `cargo test --release` builds target/release/concur too (the integration
# tests run it), so a separate `cargo build` would only compile it twice.
# `concur test` builds every implementation first, one at a time; `concur
# build` builds them several at a time before it, so that `test` and `verify`
# find them built. A failed build does not stop the target (`-`): `concur
# test` reports it again, with the tests of every other implementation.
test: setup
	cargo test --release --locked
	-$(CONCUR) build
	$(CONCUR) test
	$(CONCUR) verify --cores 1,2

# The main job: build concur, then every implementation, several at a time
# (`concur build`), then `concur run` (it verifies each implementation once,
# measures those that pass and records why the others were not; an
# interrupted run is continued by --resume), then the report from the
# database: results/report/index.html and summary.md. The short form of
# the faults (spec/PROFILES.md, "Faults": each server at one core under a
# runaway request and a kill -9) and the quick process micro-benchmarks
# (spec/MICRO.md) go into the same database and report.
# A failed build does not stop the target (`-`): `run` and `micro` try it
# again and record it as failed, beside the implementations they measure.
bench: build
	-$(CONCUR) build
	$(CONCUR) run --profile quick --resume
	-$(CONCUR) faults --profile quick
	$(CONCUR) micro --profile quick
	$(CONCUR) report
