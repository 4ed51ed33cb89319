#!/bin/bash
# A stand-in for tapas-worker used by tst_run_launcher where only launcher logic is under test:
# rank 0 appends metrics lines to metrics.jsonl and, given --metrics-port, sends the hello and
# the same lines over bash's /dev/tcp, with the token the launcher put in TAPAS_METRICS_TOKEN.
# Each rank logs to logs/rank-N.log.
# FAKE_MODE: finish | die (rank 1 SIGKILLs itself after step 2) | hang (silent after step 1)
#            | stop (after the last step waits for SIGTERM, then writes stopped).
rank=${OMPI_COMM_WORLD_RANK:-0}
while [ $# -gt 0 ]; do
  case "$1" in
    --run-dir) dir=$2; shift;; --steps) steps=$2; shift;;
    --metrics-port) port=$2; shift;;
  esac; shift
done
mkdir -p "$dir/logs"; exec >>"$dir/logs/rank-$rank.log" 2>&1
echo "fake worker rank $rank pid $$"
emit() { # type, rest of the object
  local line="{\"v\":1,\"type\":\"$1\",\"time\":$(date +%s.%N),$2}"
  [ "$rank" = 0 ] || return 0
  echo "$line" >> "$dir/metrics.jsonl"
  [ -n "$port" ] && echo "$line" >&3
  return 0
}
if [ "$rank" = 0 ] && [ -n "$port" ]; then
  exec 3<>/dev/tcp/127.0.0.1/$port
  echo "{\"v\":1,\"type\":\"hello\",\"run\":\"fake\",\"token\":\"$TAPAS_METRICS_TOKEN\"}" >&3
fi
trap 'echo "rank $rank: SIGTERM"; emit status "\"state\":\"stopped\",\"text\":\"by signal\""; exit 0' TERM
emit status '"state":"running","text":""'
for s in $(seq 1 "$steps"); do
  emit step "\"step\":$s,\"values\":{\"loss\":$((100 - s)),\"step_time\":0.01}"
  echo "rank $rank finished step $s"
  if [ "$FAKE_MODE" = die ] && [ "$rank" = 1 ] && [ "$s" = 2 ]; then echo "rank 1 about to die"; kill -9 $$; fi
  if [ "$FAKE_MODE" = hang ]; then while true; do sleep 0.1; done; fi
  sleep 0.2
done
if [ "$FAKE_MODE" = stop ]; then while true; do sleep 0.1; done; fi
if [ "$FAKE_MODE" = die ]; then sleep 5; fi
emit status '"state":"finished","text":""'
