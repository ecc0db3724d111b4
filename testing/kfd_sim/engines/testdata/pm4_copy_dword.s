// kfdtest-style raw shader: copies the dword at s[0:1] to the dword at s[2:3] (USER_DATA_0..3).
  v_mov_b32 v2, s0
  v_mov_b32 v3, s1
  flat_load_dword v1, v[2:3]
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_mov_b32 v6, s2
  v_mov_b32 v7, s3
  flat_store_dword v[6:7], v1
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_endpgm
