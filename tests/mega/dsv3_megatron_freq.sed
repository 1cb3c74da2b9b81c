# MindSpeed-LLM's DeepSeek-V3 script with Megatron's spelling of the dense first layers
# ("([0]*3+[1]*58)", one entry a layer) over 61 layers, without no-op layers or DualPipeV
s/--noop-layers 61,62,63 //
s/^NUM_LAYERS=64/NUM_LAYERS=61/
s/--first-k-dense-replace 3 //
s/--moe-layer-freq 1 /--moe-layer-freq ([0]*3+[1]*58) /
s/--schedules-method dualpipev //
