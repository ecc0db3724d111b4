// Raw shader: initialises global wave sync resource 0 to the dword at s[0:1] (USER_DATA_0..1), as a semaphore's
// count. Needs a queue the KFD gave GWS (ALLOC_QUEUE_GWS).
  s_mov_b32 m0, 0
  s_load_dword s4, s[0:1], 0x0 glc
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v0, s4
  ds_gws_init v0 gds
  s_waitcnt lgkmcnt(0)
  s_endpgm
