// Raw shader with an instruction the engine does not implement (ds_gws_init: the global wave sync unit of GDS): the
// illegal-instruction path of a PM4 dispatch.
  ds_gws_init v0 gds
  s_endpgm
