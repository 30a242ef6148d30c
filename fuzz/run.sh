#!/usr/bin/env bash
# fuzz/run.sh SECONDS TARGET... - runs each built target (build/fuzz_<name>)
# for SECONDS, one after the other, from its seed corpus (corpus/<name>/,
# only read) and what earlier runs kept (build/corpus/<name>/, where new
# inputs go), with the format's tokens from dict/<name>.dict if there is one. Prints one line per target: executions, executions per
# second, coverage (libFuzzer's "cov": instrumented edges reached; "ft":
# features) and corpus size. A crash, leak, timeout or sanitizer report
# stops the run: its input is in build/crashes/, its log in
# build/logs/<name>.log, and the exit status is 1.
set -uo pipefail
cd "$(dirname "$0")"
secs=$1
shift
mkdir -p build/crashes build/logs
status=0
printf '%-8s %12s %9s %6s %7s %s\n' target execs exec/s cov ft corpus
for t in "$@"; do
    mkdir -p "build/corpus/$t"
    log="build/logs/$t.log"
    dict=""
    [ -f "dict/$t.dict" ] && dict="-dict=dict/$t.dict"
    # -rss_limit_mb: the sanitizers' own overhead is a few hundred MB;
    # -timeout: no single input may take a second of real work.
    ASAN_OPTIONS=allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "build/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix="build/crashes/$t-" $dict "build/corpus/$t" "corpus/$t" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.* corp: \([^ ]*\).*/\1/p')
    printf '%-8s %12s %9s %6s %7s %s\n' "$t" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}"
    if [ $rc -ne 0 ]; then
        echo "fuzz_$t FAILED (exit $rc): see fuzz/$log; the input is in fuzz/build/crashes/"
        grep -E 'ERROR|SUMMARY|runtime error|deadly signal' "$log" | head -5
        status=1
    fi
done
exit $status
