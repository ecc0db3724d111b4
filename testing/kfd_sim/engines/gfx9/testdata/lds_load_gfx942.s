// gfx942's GLOBAL and SCRATCH loads to LDS for lds_load_test.cc (one per line; encoded by llvm-mc-19 at build time).
global_load_lds_ubyte v2, s[4:5] offset:4
global_load_lds_sbyte v2, s[4:5] offset:4
global_load_lds_ushort v2, s[4:5] offset:4
global_load_lds_sshort v2, s[4:5] offset:4
global_load_lds_dword v2, s[4:5] offset:4
scratch_load_lds_dword v2, off offset:8
