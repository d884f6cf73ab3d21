#!/bin/bash
# Starts N ranks of a command on this host, as torchrun would: RANK,
# LOCAL_RANK, WORLD_SIZE, MASTER_ADDR=127.0.0.1 and MASTER_PORT (default
# 29500) set for each; waits for all and fails if any failed (a rank that
# fails kills the others after 5 s, so none is left waiting for it).
#
#   tools/bench/collectives/launch.sh N command [args…]
set -u
N=$1
shift
export WORLD_SIZE=$N MASTER_ADDR=${MASTER_ADDR:-127.0.0.1} MASTER_PORT=${MASTER_PORT:-29500}
pids=()
for ((r = 0; r < N; r++)); do
  RANK=$r LOCAL_RANK=$r "$@" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  if ! wait "$pid"; then
    status=1
    sleep 5
    for other in "${pids[@]}"; do kill "$other" 2>/dev/null; done
  fi
done
exit $status
