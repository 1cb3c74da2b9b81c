# MindSpeed-LLM's DeepSeek-V3 script with NVIDIA's DeepSeek-V3 layout (61 layers, the MTP layer
# beside the loss in a last chunk of its own) instead of no-op layers and DualPipeV
s/--noop-layers 61,62,63 //
s/^NUM_LAYERS=64/NUM_LAYERS=61/
s/--schedules-method dualpipev //
s/--moe-fb-overlap /--moe-fb-overlap --pipeline-model-parallel-layout Et*2|(tt|)*22t|(tt|)*7mL /
