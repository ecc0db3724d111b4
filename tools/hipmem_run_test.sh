#!/usr/bin/env bash
# `hipmem run -- CMD ARGS...` runs CMD on the simulated machine through libhipmem_kfd.so.
set -euo pipefail
hipmem="$1"
probe="$2"
library="$3"
unset LD_PRELOAD
# Under --config=asan or tsan the preload is instrumented: the uninstrumented programs it goes into need the
# sanitizer's runtime first (`hipmem run` keeps a caller's LD_PRELOAD in front of its own), and are not leak-checked.
runtime=$(ldd "$library" | awk '/lib[at]san\.so/ {print $3}')
if [[ -n "$runtime" ]]; then
  export LD_PRELOAD="$runtime" ASAN_OPTIONS=detect_leaks=0
fi
# Our C probe sees one MI100: the file semantics hold and libdrm names the part.
out=$(HIPMEM_SIM_PRESET=mi100 "$hipmem" run -- "$probe" 1)
grep -q "^ok libdrm initialises every render node" <<<"$out"
grep -q "^gpu 0 drm 3\..* marketing AMD Instinct MI100$" <<<"$out"
! grep -q "^FAIL" <<<"$out"
# Without `--` too; arguments reach the command unchanged.
out=$(HIPMEM_SIM_PRESET=2xmi250x "$hipmem" run "$probe" 2)
grep -q "^gpu 1 drm 3\." <<<"$out"
# The preload follows into a shell and what it starts (rocminfo's `lsmod | grep amdgpu` works this way).
HIPMEM_SIM_PRESET=mi100 "$hipmem" run -- /bin/sh -c 'grep -q "^amdgpu " /proc/modules && test -c /dev/kfd'
# Without the preload the same probe fails: the test above is not vacuous.
if LD_PRELOAD= "$probe" 1 >/dev/null 2>&1; then echo "the probe passed without the preload" >&2; exit 1; fi
# Usage and exec errors answer as a shell would.
set +e
"$hipmem" run >/dev/null 2>&1; [[ $? -eq 2 ]] || { echo "run without a command" >&2; exit 1; }
"$hipmem" run -- /nonexistent/cmd >/dev/null 2>&1; [[ $? -eq 127 ]] || { echo "missing command" >&2; exit 1; }
set -e
if [[ -x /usr/bin/rocminfo ]]; then
  out=$(HIPMEM_SIM_PRESET=mi100 "$hipmem" run -- /usr/bin/rocminfo)
  grep -q "Marketing Name: *AMD Instinct MI100" <<<"$out"
fi
echo "hipmem run: OK"
