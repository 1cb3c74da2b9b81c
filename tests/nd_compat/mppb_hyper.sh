#!/bin/sh
# mppb_hyper.sh — the hyper_v2 sample (copied into ./hv) as a 2-stage pipeline with ND's
# -mppb keys in model.config_overrides: offset [1, -1] (25, 23 layers), full_rec [12, 8].
set -u
cp -r "$(dirname "$0")/../../samples/frameworks/hyper_v2" hv
sed -e 's/  attn_implementation: flash_attention_2/&\n  config_overrides:\n    offset: [1, -1]\n    full_rec: [12, 8]/' \
    -e 's/  pp_size: 1/  pp_size: 2/' -e 's/dp_shard_size: 64/dp_shard_size: 32/' \
    "$(dirname "$0")/../../samples/frameworks/hyper_v2/train.yaml" > hv/train.yaml
