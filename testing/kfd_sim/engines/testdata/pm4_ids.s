// Raw shader reading the state the SPI loads: USER_DATA_0/1 = output array, USER_DATA_2 = the grid's width in
// workgroups, then (RSRC2 USER_SGPR = 3, TGID_X_EN, TGID_Y_EN) s3 = workgroup id X, s4 = workgroup id Y, and v0 =
// work-item id X. Workgroups are 64 work-items. out[(y * width + x) * 64 + tid] = x << 24 | y << 16 | tid.
  s_mul_i32 s5, s4, s2
  s_add_u32 s5, s5, s3
  s_lshl_b32 s6, s5, 6
  v_add_u32 v1, s6, v0
  v_lshlrev_b32 v1, 2, v1
  s_lshl_b32 s7, s3, 24
  s_lshl_b32 s8, s4, 16
  s_or_b32 s7, s7, s8
  v_or_b32 v2, s7, v0
  global_store_dword v1, v2, s[0:1]
  s_waitcnt vmcnt(0)
  s_endpgm
