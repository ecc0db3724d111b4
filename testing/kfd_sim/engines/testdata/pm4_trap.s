// Raw shader for a PM4 dispatch that writes 0x1234abcd to the dword at s[0:1] (COMPUTE_USER_DATA_0/1), then
// executes llvm.trap's s_trap 2: the trap handler halts the wave before s_endpgm.
  v_mov_b32 v2, s0
  v_mov_b32 v3, s1
  v_mov_b32 v4, 0x1234abcd
  flat_store_dword v[2:3], v4
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_trap 2
  s_endpgm
