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

# ---- real public configs (samples/frameworks/real/README.md) ------------------------------
set(MF_REAL ${MF_SAMPLES}/real)
set(MF_RT sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/yaml_roundtrip.sh $<TARGET_FILE_DIR:nd-search>)
# Qwen3-32B by hand: embeddings 2 x 151936 x 5120 = 1,555,824,640; per layer q 5120 x 8192
# + k, v 2 x 5120 x 1024 + o 8192 x 5120 = 94,371,840, q/k norms 256, norms 10,240, MLP
# 3 x 5120 x 25600 = 393,216,000: 487,598,336 x 64 + final norm 5,120 = 32,762,123,264.
nd_cli_test(cli_mf_real_qwen3_32b_read 0 "^parameters: 32,762,123,264,"
            ${EST} -y ${MF_REAL}/pretrain_qwen3_32b_4k.yaml -A A2)
nd_cli_test(cli_mf_real_qwen3_32b_layout 0 "strategy: DP=1 MP=4 PP=4 CP=1 .* MB=4 MBS=1 SP=0 recompute=full"
            ${EST} -y ${MF_REAL}/pretrain_qwen3_32b_4k.yaml -A A2)
# ND's MindFormers demo, Qwen3-72B by hand: embeddings 2 x 152064 x 8192 = 2,491,416,576; per
# layer attention 150,994,944 + norms 16,640 + MLP 3 x 8192 x 29696 = 729,808,896 =
# 880,820,480 x 80 + 8,192 = 72,957,063,168; OP 8 from optimizer_weight_shard_size.
nd_cli_test(cli_mf_real_qwen3_72b_read 0 "^parameters: 72,957,063,168,"
            ${EST} -y ${MF_REAL}/pretrain_qwen3_72b.yaml -A A2)
nd_cli_test(cli_mf_real_qwen3_72b_layout 0 "strategy: DP=32 MP=4 PP=8 CP=1 .* OP=8 ZERO=1 VPP=1 MB=144 MBS=1 SP=1"
            ${EST} -y ${MF_REAL}/pretrain_qwen3_72b.yaml -A A2)
# DeepSeek-V3 by hand (MLA q_lora 1536, kv_lora 512, 128 heads of 128 + 64 rope, 3 dense
# layers of 18432, 58 MoE layers of 256 + 1 experts of 2048): attention 187,107,328 a layer;
# dense layers 3 x 583,483,392; MoE layers 58 x (187,107,328 + 14,336 + 257 x 44,040,192 +
# router 1,835,008 + bias 256); embeddings 2 x 129280 x 7168; final norm: 671,026,419,200.
nd_cli_test(cli_mf_real_deepseek3_read 0 "^parameters: 671,026,419,200 "
            ${EST} -y ${MF_REAL}/pretrain_deepseek3_671b.yaml -A A2)
foreach(f pretrain_qwen3_32b_4k pretrain_qwen3_72b pretrain_deepseek3_671b)
  nd_cli_test(cli_mf_real_${f}_roundtrip 0 "^roundtrip ok .*strategy: DP="
              ${MF_RT} ${CMAKE_CURRENT_BINARY_DIR}/mf_rt_${f} ${MF_REAL}/${f}.yaml "-A A2"
              -- -A A2 -d 1024 -b 4608)
endforeach()

# The chosen strategy written back reads back as chosen, for -l DP MB at PP=1 too: MindFormers
# resets micro_batch_num to 1 without a pipeline (base_trainer.py), so the micro-batches go to
# runner_config.gradient_accumulation_steps.
nd_cli_test(cli_mf_pp1_roundtrip 0 "^roundtrip ok .*PP=1 .*MB=8 "
            ${MF_RT} ${CMAKE_CURRENT_BINARY_DIR}/mf_rt_pp1 ${MF_SAMPLES}/mindformers_llama2_7b.yaml "-A A2"
            -- -A A2 -d 8 -b 64 -l DP MB)
nd_cli_test(cli_mf_pp1_accumulation 0 "MB=2 MBS=1"
            ${EST} -y ${MF_SAMPLES}/yaml/mindformers_pp1_accumulation.yaml -A A2)

# -mppb: a bare recompute: True recomputes every layer of every stage (docs/frameworks.md),
# 64 layers / 4 stages = 16 each, none selective, none off.
nd_cli_test(cli_mf_mppb_scalar_recompute 0 "full/selective/off layers: 16/0/0 16/0/0 16/0/0 16/0/0$"
            ${EST} -y ${MF_REAL}/pretrain_qwen3_32b_4k.yaml -A A2 -mppb)
# MindFormers' DeepSeek splits num_layers + mtp_depth = 62 layers (LayerSetting): 62 / 16 = 3
# a stage + offset [1 x 15, -1] = 4 x 15 + 2, the last stage's 2 holding the MTP layer: 61
# transformer layers as 4 x 15 + 1.
nd_cli_test(cli_mf_mppb_mtp_offsets 0 "FIRST=4 LAST=1"
            ${EST} -y ${MF_REAL}/pretrain_deepseek3_671b.yaml -A A2 -mppb)
# select_recompute as MindFormers' mapping {operator regex: counts per stage} is -mppb's
# selective counts (it was dropped: "states no per-stage layers or recompute"): 8 layers / 2
# stages = 4 each, both operators on 3 and 1 of them (the sample's header). Where the
# operators' counts differ ([3, 1] and [2, 2]) each stage takes the largest, 3 and 2, in a
# note; without -mppb the counts that leave layers out are named, as a list's are.
set(MF_SBO ${MF_SAMPLES}/yaml/mindformers_select_by_operator.yaml)
nd_cli_test(cli_mf_mppb_select_by_operator 0 "full/selective/off layers: 0/3/1 0/1/3$"
            ${EST} -y ${MF_SBO} -A A2 -mppb)
nd_cli_test(cli_mf_mppb_select_by_operator_differ 0
            "mindformers_sbo_differ.yaml:21: recompute_config.select_recompute: its operators' counts per stage differ: nd prices its one selective set on each stage's largest \\(3,2\\)"
            sh -c "sed '/silu/s/3, 1/2, 2/' ${MF_SBO} > ${CMAKE_CURRENT_BINARY_DIR}/mindformers_sbo_differ.yaml && ${EST} -y ${CMAKE_CURRENT_BINARY_DIR}/mindformers_sbo_differ.yaml -A A2 -mppb 2>&1")
nd_cli_test(cli_mf_select_by_operator_partial 0 "its selective recompute counts \\(3,1 a stage\\) leave layers out .*-mppb prices the counts"
            sh -c "${EST} -y ${MF_SBO} -A A2 2>&1 >/dev/null")

# ND's own hyper_v2 demo: sel_rec: false read (as no selective layers), use_seq_parallel: true
# as SP=1, enable_parallel_optimizer with optimizer_weight_shard_size 8 as OP=8 (ZeRO-1); the
# same 72,957,063,168 parameters as the MindFormers twin (pretrain_qwen3_72b.yaml).
nd_cli_test(cli_mf_hyper_nd_read 0 "strategy: DP=32 MP=4 PP=8 CP=1 .* OP=8 ZERO=1 VPP=1 MB=144 MBS=1 SP=1 recompute=full"
            ${EST} -f hyper_v2 -y ${MF_REAL}/hyper_qwen3_72b.yaml -A A2)
nd_cli_test(cli_mf_hyper_nd_params 0 "^parameters: 72,957,063,168,"
            ${EST} -f hyper_v2 -y ${MF_REAL}/hyper_qwen3_72b.yaml -A A2)
nd_cli_test(cli_mf_hyper_nd_mppb 0 "full/selective/off layers: 8/0/2 6/0/4 6/0/4 6/0/4 4/0/6 4/0/6 2/0/8 2/0/8"
            ${EST} -f hyper_v2 -y ${MF_REAL}/hyper_qwen3_72b.yaml -A A2 -mppb)
nd_cli_test(cli_mf_hyper_recompute_no 0 "SP=1 recompute=off"
            ${EST} -f hyper_v2 -y ${MF_SAMPLES}/yaml/hyper_recompute_no.yaml -A A2)
nd_cli_test(cli_mf_hyper_nd_roundtrip 0 "^roundtrip ok .*strategy: DP="
            ${MF_RT} ${CMAKE_CURRENT_BINARY_DIR}/mf_rt_hyper ${MF_REAL}/hyper_qwen3_72b.yaml "-f hyper_v2 -A A2"
            -- -f hyper_v2 -A A2 -d 1024 -b 4608)

# One field under two spellings is refused naming both lines (docs/limits.md): num_layers 32
# and num_hidden_layers 40 would otherwise price whichever came last.
nd_cli_test(cli_mf_two_spellings 2
            "bad_two_spellings.yaml:13: model.model_config.num_hidden_layers and model.model_config.num_layers [(]line 10[)] are two spellings"
            ${EST} -y ${MF_SAMPLES}/yaml/bad_two_spellings.yaml -A A2)

# DeepSeek-V3's offsets written back as MindFormers counts them, num_layers + mtp_depth = 62
# over 16 stages of 62 / 16 = 3: nd's split 3, 4 x 14, 2 plus the MTP layer on the last stage
# = 3, 4 x 14, 3, offsets 0, 1 x 14, 0 (sum 14 = 62 - 48).
nd_cli_test(cli_mf_deepseek3_offsets_mtp 0 "^    offset: \\[0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0\\]$"
            sh -c "cd \"$1\" && \"$2\" -y \"$3\" -A A2 -d 1024 -b 4608 -l MB -t 1 -o ds --no-plots --no-progress >/dev/null && cat ds/resolved.yaml"
            sh ${CMAKE_CURRENT_BINARY_DIR} $<TARGET_FILE:nd-search> ${MF_REAL}/pretrain_deepseek3_671b.yaml)
# hyper_v2's legacy schema keeps the chosen VPP: train.accelerator.pp_interleave_num added
# (it was dropped, so the file read back as VPP=1).
nd_cli_test(cli_mf_hyper_legacy_vpp_roundtrip 0 "^roundtrip ok .* VPP=([2-9]|[1-9][0-9]) .*schedule=interleaved"
            ${MF_RT} ${CMAKE_CURRENT_BINARY_DIR}/mf_rt_hyper_vpp ${MF_REAL}/hyper_qwen3_72b.yaml "-f hyper_v2 -A A2"
            -- -f hyper_v2 -A A2 -d 1024 -b 4608 -l VPP MB --set schedule=interleaved)
# A stated fsdp_config.edp_shard_size is never left at a size the layout cannot have
# (samples/frameworks/yaml/hyper_v2_edp/train.yaml's header: 3 becomes 8).
nd_cli_test(cli_mf_hyper_edp_shard 0 "^  edp_shard_size: 8$"
            sh -c "cd \"$1\" && \"$2\" -f hyper_v2 -y \"$3\" -A A2 -d 64 -b 512 -l MB MBS -t 1 -o edp --no-plots --no-progress >/dev/null && cat edp/resolved.yaml"
            sh ${CMAKE_CURRENT_BINARY_DIR} $<TARGET_FILE:nd-search> ${MF_SAMPLES}/yaml/hyper_v2_edp/train.yaml)
# max_grad_norm: null is Transformers' Trainer's no clipping (it read as unstated: clipping);
# a word is refused (tests/bad/MANIFEST).
nd_cli_test(cli_mf_hyper_max_grad_norm_null 0 "^  grad_clip: false$"
            sh -c "cd \"$1\" && \"$2\" -y \"$3\" -A H100 -d 8 -t 1 -o mgn_null --no-plots --no-progress >/dev/null && cat mgn_null/best.yaml"
            sh ${CMAKE_CURRENT_BINARY_DIR} $<TARGET_FILE:nd-search> ${BAD}/run/hyper/max_grad_norm_null.yaml)
# accelerate's mixed_precision: no is full fp32 (it was priced as bf16); an unknown one is
# refused (tests/bad/MANIFEST).
nd_cli_test(cli_mf_hyper_mixed_precision_no 0 "^  precision: .fp32.$"
            sh -c "cd \"$1\" && \"$2\" -y \"$3\" -A H100 -d 8 -t 1 -o mp_no --no-plots --no-progress >/dev/null && cat mp_no/best.yaml"
            sh ${CMAKE_CURRENT_BINARY_DIR} $<TARGET_FILE:nd-search> ${BAD}/run/hyper/mixed_precision_no.yaml)
# -f hyperparallel2: a degree below 1 or not a number in the accelerate yaml is refused naming
# that file (dp_shard_size -16 read as no FSDP, tp_size -1 as TP 1); a bad training key names
# the --train-yaml it stands in (it named the model yaml, -y). tests/bad/run/hyper/ holds them.
set(HP2 ${MF_SAMPLES}/hyperparallel2)
set(HP2_BAD ${BAD}/run/hyper)
foreach(c "acc_dp_shard_neg:8: parallelism_config.parallelism_config_dp_shard_size: '-16'"
          "acc_dp_repl_abc:7: parallelism_config.parallelism_config_dp_replicate_size: 'abc'"
          "acc_tp_neg:9: parallelism_config.parallelism_config_tp_size: '-1'")
  string(REGEX REPLACE ":.*" "" f "${c}")
  string(REGEX REPLACE "^([a-z_]+):" "\\1.yaml:" at "${c}")
  nd_cli_test(cli_mf_hp2_${f} 2 "hyper/${at} is not a whole number in \\[1, 16777216\\]"
              ${EST} -y ${HP2}/model.yaml --train-yaml ${HP2}/train.yaml --accelerate-yaml ${HP2_BAD}/${f}.yaml
              -A A2 -d 32)
endforeach()
nd_cli_test(cli_mf_hp2_train_file_named 2 "hyper/train_seq_abc.yaml:4: dataset.data_transform.max_seq_len: seq_len: 'abc'"
            ${EST} -y ${HP2}/model.yaml --train-yaml ${HP2_BAD}/train_seq_abc.yaml --accelerate-yaml ${HP2}/accelerate.yaml
            -A A2 -d 32)
nd_cli_test(cli_mf_hp2_train_gbs_file_named 2 "hyper/train_gbs_neg.yaml:6: training.global_batch_size: global_batch: '-256'"
            ${EST} -y ${HP2}/model.yaml --train-yaml ${HP2_BAD}/train_gbs_neg.yaml --accelerate-yaml ${HP2}/accelerate.yaml
            -A A2 -d 32)

# micro_batch_interleave_num multiplies the batch per micro-batch (base_trainer.py): 1 x 2 = 2
# sequences, so 32 x 144 x 2 = 9216 a step; written back so the choice's MBS reads back.
nd_cli_test(cli_mf_interleave_read 0 "MB=144 MBS=2 SP=1"
            ${EST} -y ${MF_SAMPLES}/yaml/mindformers_interleave2.yaml -A A2)
nd_cli_test(cli_mf_interleave_roundtrip 0 "^roundtrip ok .*strategy: DP="
            ${MF_RT} ${CMAKE_CURRENT_BINARY_DIR}/mf_rt_mbi ${MF_SAMPLES}/yaml/mindformers_interleave2.yaml "-A A2"
            -- -A A2 -d 1024 -b 9216)

# ---- the second sweep of real MindFormers configs (samples/frameworks/real/README.md) -----
# The mcore DeepSeek-V3 states few sizes: MindFormers' DeepseekV3Config defaults fill them
# (DeepSeek-V3's own), the same 671,026,419,200 as above by hand, a note naming the defaults.
nd_cli_test(cli_mf_mcore_ds3_read 0 "^parameters: 671,026,419,200 \\(with MTP 682,636,487,424\\)"
            ${EST} -y ${MF_REAL}/mcore_pretrain_deepseek3_671b.yaml -A A3 -d 256)
nd_cli_test(cli_mf_mcore_ds3_defaults_strict 2 "DeepseekV3Config defaults" ${EST}
            -y ${MF_REAL}/mcore_pretrain_deepseek3_671b.yaml -A A3 -d 256 --strict)
# offset [[1]*8, [1]*7 + [-2]] at PP 8, pp_interleave_num 2: each of the 16 chunks holds
# floor(61 / 16) = 3 + its offset, so fifteen chunks of 4 and the last of 1 (61), with the MTP
# layer and the loss after it: the layout Etttt|tttt|...|tmL
nd_cli_test(cli_mf_mcore_ds3_chunks 0 "priced as the layout Etttt(\\|tttt)+\\|tmL" sh -c
            "${EST} -y ${MF_REAL}/mcore_pretrain_deepseek3_671b.yaml -A A3 -d 256 2>&1 >/dev/null")
# MindFormers never splits an expert over MP (its MoE layout: EP inner, DP x MP x CP / EP outer)
nd_cli_test(cli_mf_mcore_ds3_etp 0 "strategy: DP=4 MP=8 PP=8 .* EP=32 ETP=1 "
            ${EST} -y ${MF_REAL}/mcore_pretrain_deepseek3_671b.yaml -A A3 -d 256)
# optimizer.swap: True keeps the AdamW states on the host: no optimizer column on the device
nd_cli_test(cli_mf_mcore_ds3_swap 0 "^ +1 +8 +[0-9]+ +[0-9]+ +0 " ${EST}
            -y ${MF_REAL}/mcore_pretrain_deepseek3_671b.yaml -A A3 -d 256)
# Qwen3-30B-A3B's mcore MoE (num_experts): 48 layers x (attention 2048 x (4096 + 2 x 512) x 2
# ... = 18,874,368, q/k norms 256, norms 4,096, 128 experts x 3 x 2048 x 768 = 603,979,776,
# router 262,144) + embeddings 2 x 151,936 x 2048 + 2048 = 30,532,122,624 (its checkpoint's count)
nd_cli_test(cli_mf_qwen3moe_read 0 "^parameters: 30,532,122,624, "
            ${EST} -y ${MF_REAL}/pretrain_qwen3_30b_a3b_4k.yaml -A A2 -d 16)
nd_cli_test(cli_mf_qwen3moe_seq 0 "^0$" sh -c
            "${EST} -y ${MF_REAL}/pretrain_qwen3_30b_a3b_4k.yaml -A A2 -d 16 2>&1 | grep -c 'seq_length not stated' || true")
# Mixtral's param_init_type float16: the 16-bit weights are the only copy, the AdamW moments
# fp32 beside them: 8 bytes of optimizer state a parameter where float32 parameters take 12
# (the fp32 master too), so the optimizer column is 2/3 of the float32 file's
nd_cli_test(cli_mf_mixtral_fp16_no_master 0 "^ratio ok$" sh -c
            "sed 's/param_init_type: \"float16\"/param_init_type: \"float32\"/' ${MF_REAL}/pretrain_mixtral-8x7b.yaml > ${CMAKE_CURRENT_BINARY_DIR}/mx32.yaml && a=$(${EST} -y ${MF_REAL}/pretrain_mixtral-8x7b.yaml -A A2 -d 16 | awk '$1 == 0 && NF > 10 {print $5}') && b=$(${EST} -y ${CMAKE_CURRENT_BINARY_DIR}/mx32.yaml -A A2 -d 16 | awk '$1 == 0 && NF > 10 {print $5}') && [ $((3 * a - 2 * b)) -le 2 ] && [ $((2 * b - 3 * a)) -le 2 ] && echo ratio ok")
# MindFormers' own Llama 2 7B pre-training config (the 4160 tokens/s/p row of its model list,
# docs/benchmarks.md): 32 x (4 x 4096^2 + 3 x 4096 x 11,008 + 2 x 4096) + 2 x 32,000 x 4096
# + 4096 = 6,738,415,616 (by hand); its context's max_device_memory "59GB" is the budget,
# 59 x 1024 = 60,416 MiB; DP 8 with 8 accumulated micro-batches of one sequence. Its fp16
# param_init_type makes the weights and the gradients 16-bit alike (MindSpore accumulates them
# in clones of the weights): 6,738,415,616 x 2 bytes = 12,853 MiB each
nd_cli_test(cli_mf_llama2_7b_bf16_read 0 "parameters: 6,738,415,616, .* 0 +32 +12853 +12853 .*budget 60416 MiB: fits"
            sh -c "${EST} -y ${MF_REAL}/pretrain_llama2_7b_bf16.yaml -A A2 2>/dev/null | tr '\\n' ' '")
nd_cli_test(cli_mf_llama2_7b_bf16_layout 0 "strategy: DP=8 MP=1 PP=1 CP=1 EP=1 ETP=1 OP=8 ZERO=1 VPP=1 MB=8 MBS=1"
            ${EST} -y ${MF_REAL}/pretrain_llama2_7b_bf16.yaml -A A2)
foreach(f mcore_pretrain_deepseek3_671b pretrain_qwen3_30b_a3b_4k pretrain_mixtral-8x7b pretrain_llama2_7b_bf16)
  set(read "-A A2 -d 16") # one word for yaml_roundtrip.sh's READ_FLAGS
  set(dev -A A2 -d 16)
  if(f STREQUAL "mcore_pretrain_deepseek3_671b")
    set(read "-A A3 -d 256")
    set(dev -A A3 -d 256)
  endif()
  nd_cli_test(cli_mf_real_${f}_roundtrip 0 "^roundtrip ok .*strategy: DP="
              ${MF_RT} ${CMAKE_CURRENT_BINARY_DIR}/mf_rt_${f} ${MF_REAL}/${f}.yaml ${read} -- ${dev})
endforeach()
# Llama 3 70B's select_recompute [10, 8, 6, ...] counts layers per stage: -mppb's, named in a
# note (80 layers over 8 stages: stage 1 recomputes 8 of its 10); no intermediate_size: MindFormers' rule, ceil(1.3 x floor(8 x 8192 / 3) / 256) x 256
# = 28,416, so 70,050,390,016 parameters (README.md there, by hand)
nd_cli_test(cli_mf_llama70_read 0 "^parameters: 70,050,390,016, "
            ${EST} -y ${MF_REAL}/pretrain_llama3_70b.yaml -A A2 -d 64)
nd_cli_test(cli_mf_llama70_select_counts 0 "its selective recompute counts \\(10,8,6,4,2,0,0,0 a stage\\) leave layers out \\(stage 1: 8 of 10\\): priced as selective recompute on every layer. -mppb prices the counts"
            sh -c "${EST} -y ${MF_REAL}/pretrain_llama3_70b.yaml -A A2 -d 64 2>&1 >/dev/null")
# fine_grain_interleave: N > 1 slices each layer so that TP's collectives run beside compute:
# the Llama 2 7B sample at MP 4 exposes less MP_COMM with 2 slices than with 1 (186.2 ms
# exposed, all of it, at 1; 55.1 at 2); a count that is no number is refused at its line
nd_cli_test(cli_mf_fine_grain_interleave 0 "^  MP_COMM +5[0-9]\\.[0-9][0-9] " sh -c
            "sed -e 's/^  model_parallel: 1$/  model_parallel: 4/' -e 's/^    fine_grain_interleave: 1$/    fine_grain_interleave: 2/' ${MF_SAMPLES}/mindformers_llama2_7b.yaml > ${CMAKE_CURRENT_BINARY_DIR}/fgi2.yaml && ${EST} -y ${CMAKE_CURRENT_BINARY_DIR}/fgi2.yaml -A A2")
nd_cli_test(cli_mf_fine_grain_interleave_bad 2 "fgix.yaml:102: model.model_config.fine_grain_interleave: 'x' is not a count of slices" sh -c
            "sed 's/^    fine_grain_interleave: 1$/    fine_grain_interleave: x/' ${MF_SAMPLES}/mindformers_llama2_7b.yaml > ${CMAKE_CURRENT_BINARY_DIR}/fgix.yaml && ${EST} -y ${CMAKE_CURRENT_BINARY_DIR}/fgix.yaml -A A2")
# MindFormers' mcore configs (use_legacy: False) take the model from pretrained_model_dir's
# config.json: Qwen3-30B-A3B's, so the checkpoint's 30,532,122,624 parameters (as
# cli_mf_qwen3moe_read above); a directory without one, and no shape in model_config, is
# refused naming the key, its line and the path looked for
nd_cli_test(cli_mf_pretrained_model_dir 0 "^parameters: 30,532,122,624, "
            ${EST} -y ${MF_SAMPLES}/yaml/mindformers_mcore/pretrain_qwen3_moe.yaml -A A2)
nd_cli_test(cli_mf_pretrained_model_dir_missing 2 "nowhere.yaml:6: pretrained_model_dir: 'nowhere' is no checkpoint directory with a config.json here or in the Hugging Face cache, and nd downloads nothing: give the checkpoint's local directory. model.model_config states no hidden_size either" sh -c
            "sed 's/pretrained_model_dir: \"qwen3_30b_a3b\"/pretrained_model_dir: \"nowhere\"/' ${MF_SAMPLES}/yaml/mindformers_mcore/pretrain_qwen3_moe.yaml > ${CMAKE_CURRENT_BINARY_DIR}/nowhere.yaml && ${EST} -y ${CMAKE_CURRENT_BINARY_DIR}/nowhere.yaml -A A2")
# Llama's MLP rule takes multiple_of and ffn_dim_multiplier as numbers: another value is
# refused at its line (was: 256 taken, and the note claimed the file's value)
nd_cli_test(cli_mf_multiple_of_bad 2 "mo.yaml:86: model.model_config.multiple_of: 'abc' is not a whole number >= 1" sh -c
            "sed 's/^    multiple_of: 256$/    multiple_of: abc/' ${MF_SAMPLES}/mindformers_llama2_7b.yaml > ${CMAKE_CURRENT_BINARY_DIR}/mo.yaml && ${EST} -y ${CMAKE_CURRENT_BINARY_DIR}/mo.yaml -A A2")
nd_cli_test(cli_mf_ffn_multiplier_bad 2 "fdm.yaml:87: model.model_config.ffn_dim_multiplier: 'nan' is not a factor in \\(0, 64\\]" sh -c
            "sed 's/^    multiple_of: 256$/    multiple_of: 256\\n    ffn_dim_multiplier: nan/' ${MF_SAMPLES}/mindformers_llama2_7b.yaml > ${CMAKE_CURRENT_BINARY_DIR}/fdm.yaml && ${EST} -y ${CMAKE_CURRENT_BINARY_DIR}/fdm.yaml -A A2")
