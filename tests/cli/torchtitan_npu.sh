#!/bin/sh
# torchtitan-npu's DeepSeek-V3 671B config (samples/frameworks/real/torchtitan_npu_deepseek_v3_671b_4k.toml)
# on 128 A3 dies, with its checkpoint's config.json where hf_assets_path points. By hand:
# - torchtitan builds no MTP module: the checkpoint's MTP layer is noted and not priced.
# - virtual_optimizer = true, size "all": AdamW's two fp32 moments (8 bytes a local parameter)
#   live on the host, so the optimizer column holds the fp32 master weights alone, 4 bytes a
#   local parameter, which equals the fp32 gradients' column (FSDP keeps its gradients sharded,
#   4 bytes each); with the moments on the device it is three times that.
# - the step reads and writes the moments across the host link once: OPTIMIZER grows by
#   2 x 8 x local / (7.43e9 B/s, A3's host_gbps) over the moments kept on the device, local =
#   the gradients' MiB x 2^20 / 4.
set -eu
estimate=$1 samples=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$samples/frameworks/real/torchtitan_npu_deepseek_v3_671b_4k.toml" "$dir/job.toml"
mkdir -p "$dir/assets/hf/DeepSeek-V3.1-Base"
cp "$samples/models/deepseek-v3.json" "$dir/assets/hf/DeepSeek-V3.1-Base/config.json"
"$estimate" -y "$dir/job.toml" -A A3 -d 128 >"$dir/out" 2>"$dir/err"
grep -q "torchtitan builds no MTP module, so the checkpoint's 1 MTP layer(s) are not priced" "$dir/err" || {
    echo "no note on the MTP layer"; cat "$dir/err"; exit 1; }
field() { sed -n "s/.*\"$2\": *\([0-9.e+-]*\).*/\1/p" "$1" | head -1; }
"$estimate" -y "$dir/job.toml" -A A3 -d 128 --json >"$dir/virtual.json" 2>/dev/null
"$estimate" -y "$dir/job.toml" -A A3 -d 128 --set virtual_optimizer=off --json >"$dir/device.json" 2>/dev/null
grep -q '"params_with_mtp": *671026419200' "$dir/virtual.json" || { echo "the MTP layer is priced"; exit 1; }
awk -v g="$(field "$dir/virtual.json" grads)" -v o="$(field "$dir/virtual.json" optimizer)" \
    -v o3="$(field "$dir/device.json" optimizer)" \
    -v t="$(field "$dir/virtual.json" OPTIMIZER)" -v t0="$(field "$dir/device.json" OPTIMIZER)" 'BEGIN {
    if (o - g > 1e-6 || g - o > 1e-6) { printf "optimizer %s MiB != gradients %s MiB\n", o, g; exit 1 }
    if (o3 - 3 * g > 1e-6 || 3 * g - o3 > 1e-6) { printf "on the device %s MiB != 3 x %s\n", o3, g; exit 1 }
    local = g * 1048576 / 4; want = 2 * 8 * local / 7.43e9 * 1e3
    if (t - t0 - want > 1e-6 * want || want - (t - t0) > 1e-6 * want) {
        printf "OPTIMIZER grows %.6f ms, want %.6f\n", t - t0, want; exit 1 } }'
echo ok
