#!/usr/bin/env bash
# DESIGN.md's dependency rules, checked on every test run:
#   core/ includes no Qt, MPI or torch; views/ no MPI or torch; only runtime/ touches MPI/torch/CUDA.
set -euo pipefail
root="${1:?usage: check_layering.sh SOURCE_DIR}"
status=0
check() { # dir, regex, what
  local hits
  hits=$(grep -rnE --include='*.h' --include='*.cpp' --include='*.cu' "$2" "$root/$1" || true)
  if [ -n "$hits" ]; then
    echo "layering: $1/ must not include $3:"
    echo "$hits"
    status=1
  fi
}
check core  '#include *[<"](Q[A-Za-z]+|Qt[A-Za-z]*/|mpi\.h|torch/|ATen/|c10/|cuda|nccl)' "Qt, MPI, torch or CUDA"
check views '#include *[<"](mpi\.h|torch/|ATen/|c10/|cuda|nccl|runtime/(comm|exec|gan|metrics|launch|cuda)/|runtime/[a-z_]+\.h)' "MPI, torch, CUDA or runtime internals (only runtime/protocol/)"
check app   '#include *[<"](mpi\.h|torch/|ATen/|c10/|cuda|nccl|runtime/(comm|exec|gan|metrics|cuda)/|runtime/[a-z_]+\.h)' "MPI, torch, CUDA or worker internals (app talks to the runtime through runtime/launch and runtime/protocol)"
check runtime/protocol '#include *[<"](Q[A-Za-z]+|Qt[A-Za-z]*/|mpi\.h|torch/|ATen/|c10/|cuda|nccl)' "Qt, MPI, torch or CUDA (it is shared with views)"
[ "$status" -eq 0 ] && echo "layering: core, views and app keep DESIGN.md's dependency rules"
exit "$status"
