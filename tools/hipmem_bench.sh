#!/bin/bash
# `hipmem bench` with the benchmark programs of this launcher's runfiles (tools/BUILD, target hipmem_bench).
set -euo pipefail
runfiles="${RUNFILES_DIR:-$0.runfiles}"
export RUNFILES_DIR="$runfiles"
exec "$runfiles/hipmem/tools/hipmem" bench "$@"
