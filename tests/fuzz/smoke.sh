#!/bin/sh
# SPDX-License-Identifier: MIT
#
# smoke.sh FUZZER SECONDS CRASH_DIR CORPUS... — the short fuzz run of scripts/test (suite fuzz):
# runs a libFuzzer target for SECONDS from a fresh copy of the given corpora (seeds, saved
# regressions), so the run neither grows nor depends on earlier runs (libFuzzer exits 77 on a
# crash, which meson reads as "skipped": it is told to exit 1). Exits non-zero when the
# target broke a property (crash, sanitizer report, leak, timeout); the input is kept in
# CRASH_DIR for `scripts/fuzz --replay`.
set -eu
fuzzer=$1
seconds=$2
crash_dir=$3
shift 3

# A sanitizer report is a crash (scripts/test sets the same; meson test alone does not).
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"

work=$(mktemp -d "${TMPDIR:-/tmp}/fencescope-smoke-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/corpus" "$crash_dir"

status=0
"$fuzzer" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=3072 -seed=1 \
	-print_final_stats=1 -keep_seed=1 -cross_over_uniform_dist=1 \
	-error_exitcode=1 -timeout_exitcode=1 -artifact_prefix="$crash_dir/" "$work/corpus" "$@" || status=$?
if [ "$status" -ne 0 ]; then
	echo "smoke: $(basename "$fuzzer") broke a property (exit $status); inputs in $crash_dir:" >&2
	ls -l "$crash_dir" >&2
fi
exit "$status"
