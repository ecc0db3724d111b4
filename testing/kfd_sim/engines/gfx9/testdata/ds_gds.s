// GDS and GWS for ds_test.cc (encoded for gfx908, the one target whose assembler still takes the gds bit on memory
// operations; the GWS forms are the same on every GFX9 target).
ds_add_u32 v0, v4 gds
ds_write_b32 v0, v4 gds
ds_read_b32 v10, v0 gds
ds_add_rtn_u32 v11, v0, v4 gds
ds_write2_b32 v0, v4, v5 offset1:1 gds
ds_read2_b32 v[12:13], v0 offset1:1 gds
ds_append v14 gds
ds_gws_init v2 offset:4 gds
ds_gws_sema_v offset:4 gds
ds_gws_sema_br v2 gds
ds_gws_sema_p gds
ds_gws_barrier v2 gds
ds_gws_sema_release_all gds
