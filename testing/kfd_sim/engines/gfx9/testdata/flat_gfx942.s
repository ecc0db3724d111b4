// gfx942-only FLAT/GLOBAL/SCRATCH forms for flat_test.cc: the SC0/SC1/NT bits, SVE scratch, loads to LDS.
scratch_load_dword v1, v2, off
scratch_load_dword v4, off, off offset:16
scratch_load_dword v5, v2, s3
scratch_load_dword v6, off, s3 offset:4
global_atomic_add v[2:3], v4, off sc1 nt
global_atomic_add v1, v[2:3], v4, off sc0
global_load_dword v6, v[2:3], off sc0 sc1 nt
global_load_lds_dword v[2:3], off offset:8
global_atomic_pk_add_bf16 v1, v[2:3], v4, off sc0
global_atomic_pk_add_bf16 v[2:3], v4, off
