#!/bin/sh
# share_distance.sh ESTIMATES.csv REPORT — ND's Euclidean distance of shares, worked out
# independently from the estimates CSV nd-compare wrote (docs/reference/nd-calibration.md §4.3:
# per row, the Euclidean norm over comp, dp, mp, ep, cp and pp of (measured part / measured
# step) - (ND's folded part / its score); then the mean over rows), must be what REPORT (its
# printed table) says, to the 0.1 % it prints. The folding is ND's §0.3 (comp = FW + BW +
# RECOMPUTE, dp = DP_COMM + DP_REDUCE, pp = PP_COMM + BUBBLE) with nd's OPTIMIZER in comp,
# where the measured compute has the optimizer's kernels (docs/calibration.md).
set -u
csv=$1 report=$2
want=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); c[$i] = i }; next }
  { t = $c["time"]; s = $c["score"]
    e[1] = $c["FW_COMPUTE"] + $c["BW_COMPUTE"] + $c["RECOMPUTE"] + $c["OPTIMIZER"]; m[1] = $c["measured_comp"]
    e[2] = $c["DP_COMM"] + $c["DP_REDUCE"]; m[2] = $c["measured_dp_wait"]
    e[3] = $c["MP_COMM"]; m[3] = $c["measured_mp_wait"]
    e[4] = $c["EP_COMM"]; m[4] = $c["measured_ep_wait"]
    e[5] = $c["CP_COMM"]; m[5] = $c["measured_cp_wait"]
    e[6] = $c["PP_COMM"] + $c["BUBBLE"]; m[6] = $c["measured_pp_wait"]
    sq = 0; for (k = 1; k <= 6; k++) { d = m[k] / t - e[k] / s; sq += d * d }
    sum += sqrt(sq); n++ }
  END { printf "%.1f", 100 * sum / n }' "$csv")
got=$(sed -n 's/.*Euclidean over the parts \([0-9.]*\) %.*/\1/p' "$report")
[ "$got" = "$want" ] || { echo "FAIL: printed $got %, the estimates CSV gives $want %"; exit 1; }
echo "distance ok: $got %"
