#!/usr/bin/env bash
# OPCODES.md must be exactly what opcode_table prints: the catalogue says what the tables implement.
set -euo pipefail
table="$1"
doc="$2"
if ! diff -u "$doc" <("$table"); then
  echo "OPCODES.md is stale: bazel run //testing/kfd_sim/engines/gfx9:opcode_table > testing/kfd_sim/engines/gfx9/OPCODES.md" >&2
  exit 1
fi
