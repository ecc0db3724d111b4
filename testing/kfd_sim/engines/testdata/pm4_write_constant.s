// kfdtest-style raw shader for a PM4 dispatch: writes 0x1234abcd to the dword whose address is in s[0:1]
// (COMPUTE_USER_DATA_0/1). Every lane stores the same value to the same place.
  v_mov_b32 v2, s0
  v_mov_b32 v3, s1
  v_mov_b32 v4, 0x1234abcd
  flat_store_dword v[2:3], v4
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_endpgm
