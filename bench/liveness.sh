#!/usr/bin/env bash
# bench/liveness.sh — the 10,000-domain liveness batch benchmark (issue 4,
# "Done when"; figures in docs/performance.md, section "Liveness batch").
#
# Run from the repository root:
#
#   bench/liveness.sh                          # seedengine only
#   bench/liveness.sh --with-httpx /path/httpx # and the same hosts through httpx
#
# What it does, all on 127.0.0.1 (nothing leaves the machine):
#   1. builds seedengine and simweb into a temporary directory;
#   2. starts simweb with SITES sites (default 10000), seed 1 and the mix
#      dead=0.1,slow=0.05,blocked=0.05, writing the host list (--hosts-out)
#      and the SEEDENGINE_* settings (--env-out);
#   3. starts `seedengine serve` on a fresh temporary data dir with those
#      settings (DNS server, connect-to entries, CA file,
#      --allow-private-networks 127.0.0.0/8) at DEFAULT politeness
#      (--per-host-delay and --fetch-concurrency are not touched);
#   4. POSTs every host as one liveness batch (default chunkSize) with curl,
#      polls GET /api/v1/queues/batch/{id} until it has finished and prints
#      the wall time from POST to finished, the counts by verdict and the
#      server's peak RSS (VmHWM from /proc/<pid>/status);
#   5. with --with-httpx PATH: restarts simweb with the same sites on the
#      fixed ports 127.0.0.1:80 and :443 (httpx cannot use connect-to; needs
#      root), points httpx at simweb's DNS (-r), runs it over the same hosts
#      under /usr/bin/time -v (wall time, peak RSS) and prints both
#      throughputs side by side. httpx does one request per host without
#      seedengine's politeness, retries and DNS classification: the
#      comparison is of throughput only.
#
# Everything it starts is stopped on exit (trap). Environment knobs:
#   SITES=10000  MIX=… (diagnostics only)  BATCH_TIMEOUT=900 (s)  HTTPX_TIMEOUT=600 (s)
#   HTTPX_THREADS=50  HTTPX_REQ_TIMEOUT=10 (s)  KEEP=1 keeps the temp dir.
# Needs: go, curl, jq, python3 (free port), /usr/bin/time for httpx.
set -euo pipefail

SITES=${SITES:-10000}
SEED=1
MIX=${MIX:-'dead=0.1,slow=0.05,blocked=0.05'}  # override only for diagnostics
BATCH_TIMEOUT=${BATCH_TIMEOUT:-900}
HTTPX_TIMEOUT=${HTTPX_TIMEOUT:-600}
HTTPX_THREADS=${HTTPX_THREADS:-50}
HTTPX_REQ_TIMEOUT=${HTTPX_REQ_TIMEOUT:-10}
HTTPX=""

while [ $# -gt 0 ]; do
	case "$1" in
	--with-httpx) HTTPX=${2:?--with-httpx needs the path of the httpx binary}; shift 2 ;;
	-h|--help) sed -n '2,34p' "$0"; exit 0 ;;
	*) echo "liveness.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -f go.mod ] && grep -q '^module github.com/seedengine/seedengine' go.mod || {
	echo "liveness.sh: run from the repository root" >&2; exit 2; }
if [ -n "$HTTPX" ]; then
	[ -x "$HTTPX" ] || { echo "liveness.sh: $HTTPX is not executable" >&2; exit 2; }
	[ -x /usr/bin/time ] || { echo "liveness.sh: /usr/bin/time is needed (apt-get install -y time)" >&2; exit 2; }
fi

TMP=$(mktemp -d /tmp/seedengine-bench.XXXXXX)
SIMWEB_PID=""
SERVER_PID=""
stop() { # stop PID: SIGTERM, then SIGKILL after 10 s
	local pid=$1
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
	stop "$SERVER_PID"
	stop "$SIMWEB_PID"
	wait 2>/dev/null || true
	if [ "${KEEP:-0}" = 1 ]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# UDP datagrams the kernel dropped for want of receive buffer, machine-wide
# (simweb's DNS server drops queries so when flooded).
udp_drops() { awk '/^Udp:/ { if (n++) print $6 }' /proc/net/snmp; }
cpu_s() { awk -v t="$(getconf CLK_TCK)" '{printf "%.1f", ($14+$15)/t}' "/proc/$1/stat" 2>/dev/null || echo "?"; }
rss_kib() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

echo "== build"
go build -o "$TMP/seedengine" ./cmd/seedengine
go build -o "$TMP/simweb" ./cmd/simweb

# start_simweb [simweb flags…]: starts simweb, waits for its env file.
start_simweb() {
	rm -f "$TMP/simweb.env" "$TMP/hosts.tsv"
	"$TMP/simweb" --sites "$SITES" --seed "$SEED" --mix "$MIX" \
		--ca-dir "$TMP" --hosts-out "$TMP/hosts.tsv" --env-out "$TMP/simweb.env" "$@" \
		>"$TMP/simweb.out" 2>"$TMP/simweb.log" &
	SIMWEB_PID=$!
	for _ in $(seq 300); do
		[ -s "$TMP/simweb.env" ] && grep -q '^serving' "$TMP/simweb.out" 2>/dev/null && return 0
		kill -0 "$SIMWEB_PID" 2>/dev/null || { cat "$TMP/simweb.log" >&2; echo "simweb exited" >&2; exit 1; }
		sleep 0.1
	done
	echo "simweb did not start in 30 s" >&2; exit 1
}

echo "== simweb: $SITES sites, seed $SEED, mix $MIX"
start_simweb
sed -n '/^scenario/,/^$/p' "$TMP/simweb.out"
cut -f1 "$TMP/hosts.tsv" >"$TMP/hosts.txt"
NHOSTS=$(wc -l <"$TMP/hosts.txt")

echo "== seedengine serve (default politeness)"
PORT=$(free_port)
API="http://127.0.0.1:$PORT"
(
	# The simweb settings, exactly as simweb wrote them (SEEDENGINE_DNS_SERVER,
	# _CONNECT_TO, _EXTRA_CA_FILE, _ALLOW_PRIVATE_NETWORKS=127.0.0.0/8).
	while IFS= read -r line; do [ -n "$line" ] && export "$line"; done <"$TMP/simweb.env"
	exec "$TMP/seedengine" serve --addr "127.0.0.1:$PORT" --data-dir "$TMP/data" \
		--allow-private-networks 127.0.0.0/8
) >"$TMP/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 300); do
	curl -fsS -o /dev/null "$API/health" 2>/dev/null && break
	kill -0 "$SERVER_PID" 2>/dev/null || { tail -20 "$TMP/server.log" >&2; echo "seedengine exited" >&2; exit 1; }
	sleep 0.1
done
curl -fsS -o /dev/null "$API/health" || { echo "seedengine did not become healthy in 30 s" >&2; exit 1; }
echo "   listening on $API, data dir $TMP/data, RSS before batch $(rss_kib "$SERVER_PID") KiB"

jq -R -s '{country: "sg", domains: (split("\n") | map(select(length > 0)))}' "$TMP/hosts.txt" >"$TMP/batch.json"

echo "== POST /api/v1/queues/liveness ($NHOSTS domains, default chunkSize)"
DROPS0=$(udp_drops)
T0=$(now)
HTTP_CODE=$(curl -sS -o "$TMP/post.json" -w '%{http_code}' -H 'Content-Type: application/json' \
	--data-binary @"$TMP/batch.json" "$API/api/v1/queues/liveness")
if [ "$HTTP_CODE" != 202 ]; then echo "POST answered $HTTP_CODE:" >&2; cat "$TMP/post.json" >&2; exit 1; fi
BATCH=$(jq -r .id "$TMP/post.json")
echo "   batch $BATCH, $(jq .chunks.total "$TMP/post.json") chunks"

DEADLINE=$(( $(date +%s) + BATCH_TIMEOUT ))
LAST=0
while :; do
	curl -fsS -o "$TMP/batch-status.json" "$API/api/v1/queues/batch/$BATCH"
	STATUS=$(jq -r .status "$TMP/batch-status.json")
	case "$STATUS" in completed|completed_with_errors|failed|cancelled) break ;; esac
	if [ "$(date +%s)" -ge "$DEADLINE" ]; then
		echo "batch not finished after $BATCH_TIMEOUT s: $(jq -c '{status, chunks, items}' "$TMP/batch-status.json")" >&2
		exit 1
	fi
	if [ $(( $(date +%s) - LAST )) -ge 10 ]; then
		LAST=$(date +%s)
		printf '   %6.1f s  %s  rss %s KiB\n' "$(echo "$(now) - $T0" | bc)" \
			"$(jq -c '{status, chunks, items}' "$TMP/batch-status.json")" "$(rss_kib "$SERVER_PID")"
	fi
	sleep 0.2
done
T1=$(now)
WALL=$(echo "$T1 - $T0" | bc)
PEAK=$(rss_kib "$SERVER_PID")
DROPS=$(( $(udp_drops) - DROPS0 ))
SE_CPU=$(cpu_s "$SERVER_PID"); SW_CPU=$(cpu_s "$SIMWEB_PID")

echo "== seedengine result"
printf '   status        %s\n' "$STATUS"
printf '   wall time     %.1f s (POST to finished; target <= 15 s)\n' "$WALL"
printf '   throughput    %.1f domains/s\n' "$(echo "$NHOSTS / $WALL" | bc -l)"
printf '   peak RSS      %d KiB = %.1f MiB (VmHWM; target <= 200 MiB)\n' "$PEAK" "$(echo "$PEAK / 1024" | bc -l)"
echo "   CPU time      seedengine ${SE_CPU} s, simweb ${SW_CPU} s (user+sys, whole process life; $(nproc) CPUs)"
echo "   UDP drops     $DROPS datagrams dropped for a full receive buffer during the batch (machine-wide)"
echo "   items         $(jq -c .items "$TMP/batch-status.json")  chunks $(jq -c .chunks "$TMP/batch-status.json")"
echo "   verdicts      $(jq -c .result.verdicts "$TMP/batch-status.json")  no_verdict $(jq .result.no_verdict "$TMP/batch-status.json")  invalid $(jq '.result.invalid | length' "$TMP/batch-status.json")"
# Reasons per verdict, from the per-domain results (paged).
: >"$TMP/results.jsonl"
OFF=0
while :; do
	curl -fsS "$API/api/v1/queues/batch/$BATCH/results?limit=1000&offset=$OFF" >"$TMP/page.json" || break
	jq -c '.items[]' "$TMP/page.json" >>"$TMP/results.jsonl"
	N=$(jq '.items | length' "$TMP/page.json")
	OFF=$((OFF + N))
	[ "$N" -gt 0 ] && [ "$OFF" -lt "$(jq .total "$TMP/page.json")" ] || break
done
if [ -s "$TMP/results.jsonl" ]; then
	echo "   verdict/reason (from $(wc -l <"$TMP/results.jsonl") results):"
	jq -r '"\(.verdict)/\(.reason)"' "$TMP/results.jsonl" | sort | uniq -c | sort -rn | sed 's/^/     /'
fi
SE_RATE=$(echo "$NHOSTS / $WALL" | bc -l)
SE_WALL=$WALL
SE_PEAK=$PEAK
stop "$SERVER_PID"; SERVER_PID=""

[ -z "$HTTPX" ] && exit 0

echo "== httpx: simweb again on 127.0.0.1:80 and :443 (same seed, same sites)"
stop "$SIMWEB_PID"; SIMWEB_PID=""
cp "$TMP/hosts.txt" "$TMP/hosts.seedengine.txt"
start_simweb --http 127.0.0.1:80 --https 127.0.0.1:443
cut -f1 "$TMP/hosts.tsv" >"$TMP/hosts.txt"
cmp -s "$TMP/hosts.txt" "$TMP/hosts.seedengine.txt" || echo "   warning: the host list differs from the first run" >&2
DNS=$(sed -n 's/^SEEDENGINE_DNS_SERVER=//p' "$TMP/simweb.env")
echo "   dns $DNS; $HTTPX -version: $("$HTTPX" -version 2>&1 | grep -io 'version.*' | head -1 || true)"
# -duc: no update check; -r: simweb's DNS only; one request per host, httpx's
# default probe (HTTPS, then HTTP).
set +e
T0=$(now)
timeout -k 10 "$HTTPX_TIMEOUT" /usr/bin/time -v -o "$TMP/httpx.time" \
	"$HTTPX" -l "$TMP/hosts.txt" -r "$DNS" -duc -silent -json -no-color \
	-threads "$HTTPX_THREADS" -timeout "$HTTPX_REQ_TIMEOUT" -retries 0 \
	-o "$TMP/httpx.jsonl" >/dev/null 2>"$TMP/httpx.log"
RC=$?
T1=$(now)
set -e
HX_WALL=$(echo "$T1 - $T0" | bc)
HX_PEAK=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/httpx.time" 2>/dev/null || echo 0)
HX_PEAK=${HX_PEAK:-0}
HX_N=$(wc -l <"$TMP/httpx.jsonl" 2>/dev/null || echo 0)
HX_RATE=$(echo "$NHOSTS / $HX_WALL" | bc -l)
[ "$RC" = 0 ] || { echo "   httpx exit status $RC; last log lines:"; tail -5 "$TMP/httpx.log" | sed 's/^/     /'; }
echo "   httpx answered for $HX_N of $NHOSTS hosts; by status:"
jq -r '.status_code // "none"' "$TMP/httpx.jsonl" 2>/dev/null | sort | uniq -c | sort -rn | sed 's/^/     /' || true

echo "== side by side ($NHOSTS hosts, simweb mix $MIX, load $(cut -d' ' -f1-3 /proc/loadavg))"
printf '   %-12s %10s %12s %12s\n' tool "wall s" "domains/s" "peak RSS MiB"
printf '   %-12s %10.1f %12.1f %12.1f\n' seedengine "$SE_WALL" "$SE_RATE" "$(echo "$SE_PEAK / 1024" | bc -l)"
printf '   %-12s %10.1f %12.1f %12.1f\n' httpx "$HX_WALL" "$HX_RATE" "$(echo "$HX_PEAK / 1024" | bc -l)"
echo "   note: httpx does one request per host (threads $HTTPX_THREADS, timeout ${HTTPX_REQ_TIMEOUT}s, no retries),"
echo "   without seedengine's politeness, retries and DNS classification (and writes no database);"
echo "   this compares throughput only."
