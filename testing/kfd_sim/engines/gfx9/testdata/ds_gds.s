// A GDS access (gfx908 still encodes the gds bit) for ds_test.cc: an illegal instruction on the simulator.
ds_add_u32 v0, v4 gds
