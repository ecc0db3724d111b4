// Raw shader: every lane adds 1 to the dword at s[0:1], s2 times (USER_DATA_0..2), with flat atomics, so the
// counter ends at work-items * s2 only if no increment is lost between lanes, waves and workgroups.
  v_mov_b32 v2, s0
  v_mov_b32 v3, s1
  v_mov_b32 v4, 1
  s_mov_b32 s8, s2
loop:
  flat_atomic_add v[2:3], v4
  s_sub_u32 s8, s8, 1
  s_cmp_lg_u32 s8, 0
  s_cbranch_scc1 loop
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_endpgm
