# CLI tests of the YAML readers and write-back of MindFormers and HyperParallel configs
# (issues 25 and 27): merge keys, anchors and aliases, real public configs read, searched,
# written back, parsed by Python's yaml (else libyaml) and read back.
set(MF_SAMPLES ${PROJECT_SOURCE_DIR}/samples/frameworks)

# Merge keys as PyYAML reads them (the sample's header holds yaml.safe_load's reading):
# DP=2 MP=4 from &par, PP=2 stated beside the merge; 8 experts from the first of two merged
# mappings. Parameters by hand: embeddings 2 x 32000 x 1024 = 65,536,000; per layer
# attention 2,621,440 + norms 2,048 + 8 experts x 3 x 1024 x 2816 = 69,206,016 + router
# 8,192 = 71,837,696, x 8 layers, + the final norm 1,024 = 640,238,592.
nd_cli_test(cli_mf_merge_keys 0 "strategy: DP=2 MP=4 PP=2 CP=1 .* MB=2 "
            ${EST} -y ${MF_SAMPLES}/yaml/mindformers_merge.yaml -A A2)
nd_cli_test(cli_mf_merge_keys_experts 0 "parameters: 640,238,592, active per token 225,002,496"
            ${EST} -y ${MF_SAMPLES}/yaml/mindformers_merge.yaml -A A2)
# A << of a scalar: PyYAML refuses it ("expected a mapping or list of mappings"), so does nd.
nd_cli_test(cli_mf_merge_scalar 2 "bad_merge.yaml:3: a merge key \\(<<\\) takes a mapping"
            ${EST} -y ${MF_SAMPLES}/yaml/bad_merge.yaml -A A2)
