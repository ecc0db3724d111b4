// Raw shader: each wave takes GWS semaphore 0, adds 1 to the dword at s[0:1] (USER_DATA_0..1) with a scalar load and
// store (not atomic; s_sleep between them hands the compute unit to other waves), then gives the semaphore back.
// The dword counts every wave only if the semaphore kept the waves' updates apart.
  s_mov_b32 m0, 0
  ds_gws_sema_p gds
  s_waitcnt lgkmcnt(0)
  s_load_dword s4, s[0:1], 0x0 glc
  s_waitcnt lgkmcnt(0)
  s_add_u32 s4, s4, 1
  s_sleep 1
  s_store_dword s4, s[0:1], 0x0 glc
  s_waitcnt lgkmcnt(0)
  s_dcache_wb
  ds_gws_sema_v gds
  s_waitcnt lgkmcnt(0)
  s_endpgm
