# shellcheck shell=bash
#
# bench/paired_lib.sh -- paired rounds of a baseline query against a gpuscan
# query, for bench/citus_bench.sh and bench/group_by_bench.sh.  Source
# test/lib.sh first and set BENCH_PSQL (an array: psql and its connection
# arguments; the database must have bench.time_query from bench/sql/setup.sql).
#
#   paired LABEL BASE_SQL GPU_SQL [SETTINGS]
#       PAIRS rounds; each round times the baseline and the gpuscan query,
#       each in a new session (one warm-up run, then the median of RUNS runs,
#       server-side), in alternating order (AB, BA, ...).  Adds a line to
#       PAIRED_ROUNDS per round and a markdown row to PAIRED_ROWS: the medians
#       of both, the median ratio baseline / gpuscan (above 1: gpuscan faster),
#       its range, and how many rounds have a ratio >= 1.
#
# SETTINGS is SQL run first in each session (every session starts with
# SET jit = off).

: "${PAIRS:=15}"
: "${RUNS:=3}"
PAIRED_ROWS=()
PAIRED_ROUNDS=()

# time_once SETTINGS SQL -- median ms of RUNS runs after one warm-up, in a new session
time_once() {
	local out
	out=$("${BENCH_PSQL[@]}" -X -A -t -q -v ON_ERROR_STOP=1 -v q="$2" 2>&1 <<-SQL
		SET jit = off;
		$1
		SELECT round(median_ms::numeric, 3) FROM bench.time_query(:'q', $RUNS, 1);
		SQL
	) || die "query failed: $2: $(printf '%s\n' "$out" | grep -m 1 ERROR)"
	printf '%s\n' "$out" | tail -n 1
}

# paired LABEL BASE_SQL GPU_SQL [SETTINGS] -- see the top of this file
paired() {
	local label=$1 base_sql=$2 gpu_sql=$3 settings=${4:-} r a b ratio
	local base=() mine=() ratios=()
	for ((r = 1; r <= PAIRS; r++)); do
		if ((r % 2)); then
			a=$(time_once "$settings" "$base_sql")
			b=$(time_once "$settings" "$gpu_sql")
		else
			b=$(time_once "$settings" "$gpu_sql")
			a=$(time_once "$settings" "$base_sql")
		fi
		[[ "$a" =~ ^[0-9.]+$ && "$b" =~ ^[0-9.]+$ ]] || die "$label, round $r: no time (sum: '$a', gpu_sum: '$b')"
		base+=("$a")
		mine+=("$b")
		ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", a / b }')
		ratios+=("$ratio")
		PAIRED_ROUNDS+=("| $label | $r | $( ((r % 2)) && echo "sum first" || echo "gpu_sum first") | $a | $b | $ratio |")
		msg "$label, round $r: sum $a ms, gpu_sum $b ms, ratio $ratio"
	done
	paired_stats base mine ratios
	PAIRED_ROWS+=("$(printf '| %s | %s | %s | **%.2f×** | %.2f–%.2f | %d of %d |' \
		"$label" "$STAT_BASE" "$STAT_MINE" "$STAT_RATIO" "$STAT_MIN" "$STAT_MAX" "$STAT_FAST" "$PAIRS")")
	msg "${PAIRED_ROWS[-1]}"
}

# paired_report_tables -- the summary table and the table of all rounds (markdown)
paired_report_tables() {
	echo "| query | sum(x) median ms | gpu_sum(x) median ms | median ratio sum / gpu_sum | range | rounds ≥ 1 |"
	echo "| --- | ---: | ---: | ---: | --- | ---: |"
	printf '%s\n' "${PAIRED_ROWS[@]}"
	echo
	echo "All rounds (each time the median of $RUNS runs after one warm-up, in a new session):"
	echo
	echo "| query | round | order | sum(x) ms | gpu_sum(x) ms | ratio |"
	echo "| --- | ---: | --- | ---: | ---: | ---: |"
	printf '%s\n' "${PAIRED_ROUNDS[@]}"
}

# loadavg -- the 1, 5 and 15 minute load averages
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# wait_for_quiet -- wait (at most 3 minutes) until the 1-minute load average
# is below 1, so that the set-up's own load has died down before the timing
wait_for_quiet() {
	local i
	for ((i = 0; i < 36; i++)); do
		awk '{ exit !($1 < 1) }' /proc/loadavg && return 0
		sleep 5
	done
	msg "load average still $(loadavg) after 3 minutes; timing anyway"
}
