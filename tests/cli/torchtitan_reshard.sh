#!/bin/sh
# torchtitan's [parallelism] fsdp_reshard_after_forward: "default" keeps FSDP's gathered weights
# from forward to backward when it pipelines, "always" frees them after each forward. On 16
# devices with PP 2 (FSDP over 8) stage 0 of Llama 3 8B holds 4,015,128,576 parameters (16
# layers of 218,112,000 and the 128256 x 4096 embedding): kept gathered they add 2 bytes each,
# 7658.25 MiB, to the sharded weights (tests/test_estimate.c derives the same figure).
set -eu
estimate=$1 samples=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
base=$samples/frameworks/torchtitan_llama3_8b.toml
sed 's/^pipeline_parallel_degree = 1/pipeline_parallel_degree = 2\npipeline_parallel_microbatch_size = 1/' "$base" \
    >"$dir/default.toml"
sed 's/^context_parallel_degree = 1/context_parallel_degree = 1\nfsdp_reshard_after_forward = "always"/' \
    "$dir/default.toml" >"$dir/always.toml"
params() {
    "$estimate" -y "$1" -A H100 -d 16 -b 16 --json |
        sed -n 's/.*"params": *\([0-9.]*\).*/\1/p' | head -1
}
kept=$(params "$dir/default.toml")
freed=$(params "$dir/always.toml")
awk -v k="$kept" -v f="$freed" 'BEGIN { d = k - f - 7658.25; if (d < -1e-6 || d > 1e-6) {
    printf "kept %s - resharded %s != 7658.25 MiB\n", k, f; exit 1 } }'
# torchtitan's tensor parallelism is always sequence-parallel (its plan shards the norms and the
# residual stream over the sequence): a TP degree of 2 reads as SP=1.
sed 's/^tensor_parallel_degree = 1/tensor_parallel_degree = 2/' "$base" >"$dir/tp2.toml"
"$estimate" -y "$dir/tp2.toml" -A H100 -d 16 -b 8 --json | grep -q '"SP": *1' || {
    echo "TP 2 not read as sequence-parallel"; exit 1; }
# Before 2025 torchtitan split the local batch into pipeline_parallel_microbatches (default: the
# PP degree): local batch 4 over PP 2 in 2 micro-batches is MB=2 of MBS=2.
sed -e 's/^local_batch_size = 1/local_batch_size = 4/' \
    -e 's/^pipeline_parallel_degree = 1/pipeline_parallel_degree = 2\npipeline_parallel_microbatches = 2/' \
    "$base" >"$dir/microbatches.toml"
json=$("$estimate" -y "$dir/microbatches.toml" -A H100 -d 16 -b 32 --json)
echo "$json" | grep -q '"MB": *2,' && echo "$json" | grep -q '"MBS": *2,' || {
    echo "pipeline_parallel_microbatches not read as MB=2 MBS=2"; exit 1; }
echo ok
