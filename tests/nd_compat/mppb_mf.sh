#!/bin/sh
# mppb_mf.sh — the MindFormers sample as a 4-stage pipeline with ND's -mppb lists: offset
# [1, 0, 0, -1] (9, 8, 8, 7 layers), recompute [4, 2, 2, 0], DP 2, 8 micro-batches.
set -u
sed -e 's/^  recompute: True/  recompute: [4, 2, 2, 0]/' -e 's/^    offset: 0/    offset: [1, 0, 0, -1]/' \
    -e 's/pipeline_stage: 1/pipeline_stage: 4/' -e 's/data_parallel: 8/data_parallel: 2/' \
    -e 's/micro_batch_num: 1$/micro_batch_num: 8/' "$(dirname "$0")/../../samples/frameworks/mindformers_llama2_7b.yaml"
