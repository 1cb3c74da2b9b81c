# cli_mega.cmake — Megatron-LM and MindSpeed-LLM launch scripts as real ones spell them
# (issue 25; issue 27's variable cap and MindSpeed json casts): the public scripts of
# samples/frameworks/real/ (README.md there names each one's repository, commit and licence)
# read with their published parameter counts, searched, written back, launched with the
# launcher stubbed and read back; and each spelling on its own.
set(MEGA_REAL ${SAMPLES}/frameworks/real)
set(MEGA_DIR ${CMAKE_CURRENT_SOURCE_DIR}/mega)
set(MEGA_OUT ${CMAKE_CURRENT_BINARY_DIR}/mega-out)
set(MEGA_BIN $<TARGET_FILE_DIR:nd-estimate>)
set(MIXTRAL ${MEGA_REAL}/megatron_mixtral_8x7b.sh)
set(DSV3 ${MEGA_REAL}/mindspeed_deepseek3_671b_4k.sh)
set(QWEN72 ${MEGA_REAL}/mindspeed_qwen25_72b_32k.sh)
set(QWEN3 ${MEGA_REAL}/mindspeed_qwen3_235b_a22b_4k.sh)
file(MAKE_DIRECTORY ${MEGA_OUT})
# the lines a written script may change: the strategy's flags and the variables they use
set(MEGA_KEYS "parallel-size|context-parallel-algo|micro-batch-size|global-batch-size|sequence-parallel|distributed-optimizer|recompute|nnodes|virtual|num-layer-list|schedules-method|pipeline-num-layers|pipeline-split|pipeline-model-parallel-layout|moe-tp-extend-ep|noop-layers|--num-layers |^[<>] *$|^[<>] (TP|PP|CP|EP|VPP|MBS|GBS|NNODES|NUM_LAYERS|TP_SIZE|PP_SIZE|CP_SIZE|EP_SIZE|MICRO_BATCH_SIZE|GLOBAL_BATCH_SIZE)=")

# ---- parameter counts -----------------------------------------------------------------------
# Mixtral 8x7B: 46,702,792,704, the count of Mixtral-8x7B-v0.1's safetensors (Mistral's
# published 46.7B), with the experts --ffn-hidden-size wide (Megatron's default when
# --moe-ffn-hidden-size is absent); its launcher has 8 x ${SLURM_NNODES:-"1"} devices.
nd_cli_test(mega_mixtral_params 0 "^parameters: 46,702,792,704, active per token 12,879,925,248"
            ${EST} -y ${MIXTRAL} -A H100 -d 64)
nd_cli_test(mega_mixtral_launcher_world 2 "EP=8 ETP=1: experts fold over the MP\\*CP\\*DP = 2 ranks"
            ${EST} -y ${MIXTRAL} -A H100)
# Every other layer MoE (--moe-layer-freq 2, and as Megatron's list): by hand, 16 MoE layers
# fewer: 46,702,792,704 - 16 x (8 x 3 x 4096 x 14336 + 8 x 4096 - 3 x 4096 x 14336)
# = 26,972,262,400.
nd_cli_test(mega_moe_freq_int 0 "^parameters: 26,972,262,400," sh -c
            "sed 's/--num-experts 8/--num-experts 8 --moe-layer-freq 2/' ${MIXTRAL} > ${MEGA_OUT}/freq2.sh && ${EST} -y ${MEGA_OUT}/freq2.sh -A H100 -d 64")
nd_cli_test(mega_moe_freq_list 0 "^parameters: 26,972,262,400," sh -c
            "sed 's/--num-experts 8/--num-experts 8 --moe-layer-freq \"[1,0]*16\"/' ${MIXTRAL} > ${MEGA_OUT}/freql.sh && ${EST} -y ${MEGA_OUT}/freql.sh -A H100 -d 64")
# Megatron evaluates the list as Python: a parenthesised group repeated, or nested, is the same
# every-other-layer model
nd_cli_test(mega_moe_freq_group_repeated 0 "^parameters: 26,972,262,400," sh -c
            "sed 's/--num-experts 8/--num-experts 8 --moe-layer-freq \"([1]*1+[0]*1)*16\"/' ${MIXTRAL} > ${MEGA_OUT}/freqg.sh && ${EST} -y ${MEGA_OUT}/freqg.sh -A H100 -d 64")
nd_cli_test(mega_moe_freq_group_nested 0 "^parameters: 26,972,262,400," sh -c
            "sed 's/--num-experts 8/--num-experts 8 --moe-layer-freq \"(([1]+[0])*4)*4\"/' ${MIXTRAL} > ${MEGA_OUT}/freqh.sh && ${EST} -y ${MEGA_OUT}/freqh.sh -A H100 -d 64")
nd_cli_test(mega_moe_freq_group_unclosed 2 "--moe-layer-freq: '\\(\\[1,0\\]\\*16' is neither an int nor a list" sh -c
            "sed 's/--num-experts 8/--num-experts 8 --moe-layer-freq \"([1,0]*16\"/' ${MIXTRAL} > ${MEGA_OUT}/frequ.sh && ${EST} -y ${MEGA_OUT}/frequ.sh -A H100 -d 64")
nd_cli_test(mega_moe_freq_unrepresented 2 "--moe-layer-freq: '\\[1,1,0\\]\\*10\\+\\[1,1\\]': nd represents dense first layers then MoE, or every k-th layer MoE" sh -c
            "sed 's/--num-experts 8/--num-experts 8 --moe-layer-freq \"[1,1,0]*10+[1,1]\"/' ${MIXTRAL} > ${MEGA_OUT}/freqb.sh && ${EST} -y ${MEGA_OUT}/freqb.sh -A H100 -d 64")
nd_cli_test(mega_moe_freq_length 2 "--moe-layer-freq: 20 entries for 32 layers" sh -c
            "sed 's/--num-experts 8/--num-experts 8 --moe-layer-freq \"[1,0]*10\"/' ${MIXTRAL} > ${MEGA_OUT}/freqn.sh && ${EST} -y ${MEGA_OUT}/freqn.sh -A H100 -d 64")
# DeepSeek-V3 in MindSpeed's spelling (MLA, first 3 dense, one shared expert, 64 layers of
# which --noop-layers 61,62,63 are identities): 671,026,419,200, the count nd gives
# DeepSeek-V3's own config.json (DeepSeek's published 671B), and its MTP module beside it.
nd_cli_test(mega_dsv3_params 0 "^parameters: 671,026,419,200 \\(with MTP 682,636,487,424\\)"
            ${EST} -y ${DSV3} -A H100)
# the no-op layers empty chunk 15 of 16 (layers 60-63 hold one real layer), which DualPipeV's
# V puts on rank 0 beside chunk 0: rank 0 holds 4 + 1 layers, every other rank 8
nd_cli_test(mega_dsv3_noop_v 0 "^layers: 5,8,8,8,8,8,8,8$" sh ${MEGA_DIR}/layers.sh ${EST} -y ${DSV3} -A H100)
nd_cli_test(mega_dsv3_dualpipev 0 "schedule=dualpipev" ${EST} -y ${DSV3} -A H100)
# MindSpeed's --moe-layer-freq -1 (every layer MoE after the dense ones): the same model
nd_cli_test(mega_moe_freq_minus_one 0 "^parameters: 671,026,419,200 " sh -c
            "sed 's/--moe-layer-freq 1 /--moe-layer-freq -1 /' ${DSV3} > ${MEGA_OUT}/m1.sh && ${EST} -y ${MEGA_OUT}/m1.sh -A H100")
# Megatron's list for the same model: 3 dense, then 61 MoE (no-op places included: 64 entries)
nd_cli_test(mega_moe_freq_dense_first 0 "^parameters: 671,026,419,200 " sh -c
            "sed -e 's/--first-k-dense-replace 3 //' -e 's/--moe-layer-freq 1 /--moe-layer-freq ([0]*3+[1]*61) /' ${DSV3} > ${MEGA_OUT}/ml.sh && ${EST} -y ${MEGA_OUT}/ml.sh -A H100")
# Qwen2.5-72B: 72,706,203,648 (Qwen's published 72.7B); MindSpeed's --num-layer-list
# 17,20,22,21 is the layers of each stage, with and without -mppb
nd_cli_test(mega_qwen72_params 0 "^parameters: 72,706,203,648," ${EST} -y ${QWEN72} -A H100)
nd_cli_test(mega_qwen72_layer_list 0 "^layers: 17,20,22,21$" sh ${MEGA_DIR}/layers.sh ${EST} -y ${QWEN72} -A H100)
nd_cli_test(mega_qwen72_layer_list_mppb 0 "^layers: 17,20,22,21$" sh ${MEGA_DIR}/layers.sh ${EST} -y ${QWEN72}
            -A H100 -mppb)
nd_cli_test(mega_layer_list_sum 2 "--num-layer-list 17,20,22,20: not PP=4 counts that sum to the 80 layers" sh -c
            "sed 's/--num-layer-list 17,20,22,21/--num-layer-list 17,20,22,20/' ${QWEN72} > ${MEGA_OUT}/ll.sh && ${EST} -y ${MEGA_OUT}/ll.sh -A H100")
# --grad-reduce-in-bf16: gradients kept in bf16, 2 bytes a parameter like the bf16 weights,
# so the grads column equals the params column (fp32 main_grad buffers would double it)
nd_cli_test(mega_grad_reduce_bf16 0 "^ +0 +17 +3855 +3855 " sh -c
            "sed 's/--bf16 /--bf16 --grad-reduce-in-bf16 /' ${QWEN72} > ${MEGA_OUT}/g16.sh && ${EST} -y ${MEGA_OUT}/g16.sh -A H100")
nd_cli_test(mega_grad_fp32_default 0 "^ +0 +17 +3855 +7710 " ${EST} -y ${QWEN72} -A H100)

# ---- the pipeline-layout flags ---------------------------------------------------------------
nd_cli_test(mega_layout_flag 0 "^layers: 17,20,22,21$" sh -c
            "sed \"s/--num-layer-list 17,20,22,21/--pipeline-model-parallel-layout Et*17|t*20|t*22|t*21L/\" ${QWEN72} > ${MEGA_OUT}/lay.sh && sh ${MEGA_DIR}/layers.sh ${EST} -y ${MEGA_OUT}/lay.sh -A H100")
# Megatron's DeepSeek-V3 layout puts the MTP layer in a stage of its own: nd says so
nd_cli_test(mega_layout_standalone_mtp 2 "standalone MTP stage is not represented" sh -c
            "sed -e 's/--noop-layers 61,62,63 //' -e 's/NUM_LAYERS=64/NUM_LAYERS=61/' -e 's/--schedules-method dualpipev //' -e 's/PP=8/PP=16/' -e 's/--moe-fb-overlap /--moe-fb-overlap --pipeline-model-parallel-layout Et*3|(tt|)*29,m|L /' ${DSV3} > ${MEGA_OUT}/mtp.sh && ${EST} -y ${MEGA_OUT}/mtp.sh -A H100 -d 1024")
nd_cli_test(mega_vpp_per_chunk 0 "VPP=4 .*schedule=interleaved" sh -c
            "sed 's/--num-layer-list 17,20,22,21/--num-layers-per-virtual-pipeline-stage 5/' ${QWEN72} > ${MEGA_OUT}/v5.sh && ${EST} -y ${MEGA_OUT}/v5.sh -A H100")
nd_cli_test(mega_vpp_legacy 0 "VPP=2 .*schedule=interleaved" sh -c
            "sed 's/--num-layer-list 17,20,22,21/--virtual-pipeline-model-parallel-size 2/' ${QWEN72} > ${MEGA_OUT}/v2.sh && ${EST} -y ${MEGA_OUT}/v2.sh -A H100")
nd_cli_test(mega_first_last 0 "^layers: 17,21,21,21$" sh -c
            "sed 's/--num-layer-list 17,20,22,21/--decoder-first-pipeline-num-layers 17 --decoder-last-pipeline-num-layers 21/' ${QWEN72} > ${MEGA_OUT}/fl.sh && sh ${MEGA_DIR}/layers.sh ${EST} -y ${MEGA_OUT}/fl.sh -A H100")

# ---- launchers: shell arithmetic, -d, variables ------------------------------------------------
# bash gives --nproc_per_node 8 --nnodes 2 (the second test asks bash itself)
nd_cli_test(mega_arith_world 0 "^arith on 16 x H100" ${EST} -y ${MEGA_DIR}/arith.sh -A H100)
nd_cli_test(mega_arith_dp 0 "^strategy: DP=8 MP=2 " ${EST} -y ${MEGA_DIR}/arith.sh -A H100)
nd_cli_test(mega_arith_bash_agrees 0 "^--nproc_per_node 8 --nnodes 2 pretrain_gpt.py" bash
            ${MEGA_DIR}/bash_launch.sh ${MEGA_DIR}/arith.sh)
# -d overrides a launcher whose count (8 x 3) does not divide TP x PP x CP = 128
nd_cli_test(mega_launcher_not_dividing 2 "-d 24: the devices \\(-d, else the config's world size\\) do not divide over TP x PP x CP = 128" sh -c
            "sed 's/^NNODES=16/NNODES=3/' ${QWEN72} > ${MEGA_OUT}/n3.sh && ${EST} -y ${MEGA_OUT}/n3.sh -A H100")
nd_cli_test(mega_d_overrides_launcher 0 "^strategy: DP=2 MP=8 PP=4 CP=4 " sh -c
            "sed 's/^NNODES=16/NNODES=3/' ${QWEN72} > ${MEGA_OUT}/n3d.sh && ${EST} -y ${MEGA_OUT}/n3d.sh -A H100 -d 256")
# issue 27: no cap on the variables a script sets (TP is the 301st)
nd_cli_test(mega_300_variables 0 "^strategy: DP=4 MP=8 PP=2 " sh -c
            "sh ${MEGA_DIR}/vars300.sh ${SAMPLES}/frameworks/megatron_llama3_8b.sh ${MEGA_OUT}/vars.sh && ${EST} -y ${MEGA_OUT}/vars.sh -A H100")

# ---- issue 27: MindSpeed json numbers are checked before they are cast -----------------------
foreach(bad "1e308" "2.5" "0.5" "-3")
  string(MAKE_C_IDENTIFIER "${bad}" id)
  nd_cli_test(mega_mindspeed_json_tp_${id} 2 "tp${id}.json: tmp.tp: .* is not a whole number from 0 to 16777216" sh -c
              "sed 's/\"tp\": 4/\"tp\": ${bad}/' ${SAMPLES}/frameworks/mindspeed_qwen2_7b.json > ${MEGA_OUT}/tp${id}.json && ${EST} -y ${MEGA_OUT}/tp${id}.json -A H100")
endforeach()
nd_cli_test(mega_mindspeed_json_pipeline_fraction 2 "pipeline_num_layers\\[\\]: 14.5 is not a whole number" sh -c
            "sed 's/\\[14, 14\\]/[14.5, 13.5]/' ${SAMPLES}/frameworks/mindspeed_qwen2_7b.json > ${MEGA_OUT}/pl.json && ${EST} -y ${MEGA_OUT}/pl.json -A H100")

# ---- the real scripts end to end: searched, written back, launched (stubbed), read back -------
foreach(script megatron_mixtral_8x7b mindspeed_deepseek3_671b_4k mindspeed_qwen25_72b_32k
        mindspeed_qwen3_235b_a22b_4k megatron_gpt3_175b mindspeed_mixtral_8x22b_32k
        mindspeed_glm45_air_106b)
  # (megatron_deepseek2_lite_fp8 exits unless pretrain_gpt.py is beside it: read, not launched)
  set(devices -A H100)
  if(script STREQUAL "megatron_mixtral_8x7b")
    set(devices -A H100 -d 64)
  elseif(script STREQUAL "megatron_gpt3_175b")
    set(devices -A H100 -d 128) # its launcher's 8 GPUs do not hold TP 8 x PP 16
  elseif(script STREQUAL "mindspeed_mixtral_8x22b_32k")
    set(devices -A A2 -d 64)
  elseif(script MATCHES "mindspeed_qwen3_235b_a22b_4k|mindspeed_glm45_air_106b")
    set(devices -A A3) # the scripts' Ascend A3 (16 NPUs a node)
  endif()
  nd_cli_test(mega_launch_${script} 0 "^launch ok: " sh ${MEGA_DIR}/real_launch.sh ${MEGA_BIN}
              ${MEGA_REAL}/${script}.sh ${MEGA_OUT}/${script} "${MEGA_KEYS}" ${devices})
endforeach()
# flags nd adds on a one-line command go after whole words: the quoted value and the
# ${VAR:-"..."} default stay as they were
nd_cli_test(mega_launch_oneline 0 "^launch ok: " env "CHECK=--tensorboard-dir \"\${CKPT}/tb board\" --wandb-exp-name \${WANDB_NAME:-\"my run\"}"
            sh ${MEGA_DIR}/variant.sh ${MEGA_BIN} ${MEGA_DIR}/oneline.sh "s/^#.*//" ${MEGA_OUT}/oneline "parallel-size|^[<>] *$|pretrain_gpt" -A H100)
# a variable used once is changed at its assignment: the flag keeps ${TP}
nd_cli_test(mega_launch_variable_kept 0 "^launch ok: " env "CHECK=--tensor-model-parallel-size \${TP}"
            sh ${MEGA_DIR}/variant.sh ${MEGA_BIN} ${QWEN72} "s/^#.*//" ${MEGA_OUT}/qvar "${MEGA_KEYS}" -A H100)
# the layout flag: the choice's layout in its place
nd_cli_test(mega_launch_layout 0 "^launch ok: " sh ${MEGA_DIR}/variant.sh ${MEGA_BIN} ${QWEN72}
            "s/--num-layer-list 17,20,22,21/--pipeline-model-parallel-layout Et*17|t*20|t*22|t*21L/" ${MEGA_OUT}/qlay "${MEGA_KEYS}" -A H100)
nd_cli_test(mega_launch_vpp_legacy 0 "^launch ok: " sh ${MEGA_DIR}/variant.sh ${MEGA_BIN} ${QWEN72}
            "s/--num-layer-list 17,20,22,21/--virtual-pipeline-model-parallel-size 2/" ${MEGA_OUT}/qvpp "${MEGA_KEYS}" -A H100)
# a search at another -d than the script's own (128, stated, dividing): the written script's
# --nnodes is the choice's (64 / 8 = 8; $NNODES is used by WORLD_SIZE too, so the flag takes it)
nd_cli_test(mega_launch_qwen72_d64 0 "^launch ok: .*DP=4 " sh ${MEGA_DIR}/real_launch.sh ${MEGA_BIN}
            ${QWEN72} ${MEGA_OUT}/qwen_d64 "${MEGA_KEYS}" -A H100 -d 64)
# a stated launcher is the job's count: nd-estimate -d must agree with it
nd_cli_test(mega_stated_launcher 2 "DP\\*MP\\*PP\\*CP = 1\\*8\\*4\\*4 = 128 devices, but the cluster has 64"
            ${EST} -y ${QWEN72} -A H100 -d 64)
# no degree flags at all: the new ones go beside --num-layers, not after the script's last
# word (a ${WANDB_NAME:-"..."} default, inside which they once landed)
nd_cli_test(mega_launch_no_degrees 0 "^launch ok: " env "CHECK=--wandb-exp-name \${WANDB_NAME:-\"my run\"}"
            sh ${MEGA_DIR}/variant.sh ${MEGA_BIN} ${MEGA_DIR}/oneline.sh "s/ --tensor-model-parallel-size 8//" ${MEGA_OUT}/nodeg "parallel-size|^[<>] *$|pretrain_gpt" -A H100)
# MindSpeed's --moe-tp-extend-ep: EP=8 over TP=4 unsharded is 32 expert ranks, ETP 1
nd_cli_test(mega_dsv3_tp_extend_ep 0 "^strategy: DP=16 MP=4 PP=8 CP=1 EP=32 ETP=1 " ${EST} -y ${DSV3} -A H100)
# Qwen3-235B-A22B (MindSpeed-LLM, A3): 235,093,610,496 = the checkpoint's 235,093,634,560
# (Qwen's published 235B) less the q/k norms the script does not state (--qk-layernorm
# absent: 94 layers x 2 x 128 = 24,064); --noop-layers 94,95 with VPP 3 (96 / (4 x 8)) empty
# two places of chunk 11, rank 3's last; --moe-tp-extend-ep makes EP 32 x TP 2 = 64
nd_cli_test(mega_qwen3_params 0 "^parameters: 235,093,610,496, active per token 22,190,739,456" ${EST} -y ${QWEN3} -A A3)
nd_cli_test(mega_qwen3_noop_vpp 0 "^layers: 24,24,24,22$" sh ${MEGA_DIR}/layers.sh ${EST} -y ${QWEN3} -A A3)
nd_cli_test(mega_qwen3_strategy 0 "^strategy: DP=32 MP=2 PP=4 CP=1 EP=64 ETP=1 .* VPP=3 .*recompute=full schedule=interleaved"
            ${EST} -y ${QWEN3} -A A3)
# flags inside quoted array elements ("--vocab-size 128256", split by ${ARGS[@]}): Llama 3 8B's
# 8,030,261,248 (Meta's published 8.03B) with the vocabulary the element states, no default
nd_cli_test(mega_quoted_array_words 0 "^parameters: 8,030,261,248," ${EST} -y ${MEGA_DIR}/quoted_words.sh -A H100)
nd_cli_test(mega_quoted_array_no_default 0 "^0$" sh -c
            "${EST} -y ${MEGA_DIR}/quoted_words.sh -A H100 2>&1 >/dev/null | grep -c 'a vocabulary of' || true")
# NVIDIA's DeepSeek-V3 layout "Et*2|(tt|)*22t|(tt|)*7mL" (32 chunks: PP 8 x VPP 4) in the
# MindSpeed script: rank r holds chunks r, r+8, r+16, r+24; rank 7's are 2 + 2 + 1 + 0 (the
# MTP layer and the loss) = 5 layers, the others 8 (by hand from the layout)
nd_cli_test(mega_dsv3_layout 0 "^layers: 8,8,8,8,8,8,8,5$" sh -c
            "sed -f ${MEGA_DIR}/dsv3_layout.sed ${DSV3} > ${MEGA_OUT}/dsl.sh && sh ${MEGA_DIR}/layers.sh ${EST} -y ${MEGA_OUT}/dsl.sh -A H100")
nd_cli_test(mega_launch_dsv3_layout 0 "^launch ok: .*VPP=4 " sh ${MEGA_DIR}/variant.sh ${MEGA_BIN} ${DSV3}
            @${MEGA_DIR}/dsv3_layout.sed ${MEGA_OUT}/dsv3_layout "${MEGA_KEYS}" -A H100)
# a variable set from a command's output is not a value nd knows (not its ${TP:-2} default)
nd_cli_test(mega_unknown_value 2 "unknown.sh:7: --tensor-model-parallel-size: '\\$\\{TP:-2\\}' uses a shell value nd does not read \\(a variable the script does not set, a command's output or the script's arguments\\)"
            ${EST} -y ${MEGA_DIR}/unknown.sh -A H100 -d 8)
nd_cli_test(mega_unknown_world 0 "^strategy: DP=8 MP=1 " sh -c
            "sed 's/^TP=.*/TP=1/' ${MEGA_DIR}/unknown.sh > ${MEGA_OUT}/unknown_world.sh && ${EST} -y ${MEGA_OUT}/unknown_world.sh -A H100 -d 8")
# nesting past reason never runs the stack out (every group, default and expression is bounded)
nd_cli_test(mega_deep_nesting 0 "^no crash: 6 scripts" sh ${MEGA_DIR}/deep_nesting.sh ${EST} ${MEGA_OUT}/deep)
# a launcher without --nnodes (one node of 8) searched on -d 64: the written one gains --nnodes 8
nd_cli_test(mega_launch_nnodes_added 0 "^launch ok: .*DP=64 " env "CHECK=--nnodes 8"
            sh ${MEGA_DIR}/variant.sh ${MEGA_BIN} ${MIXTRAL} "/--nnodes \\$NNODES/d" ${MEGA_OUT}/nonodes "${MEGA_KEYS}" -A H100 -d 64)
# 12 devices are not whole nodes of 8: refused rather than a launcher that runs another count
nd_cli_test(mega_not_whole_nodes 2 "the choice's 12 devices are not whole nodes of the launcher's --nproc_per_node 8" sh -c
            "sed '/--nnodes \\$NNODES/d' ${MIXTRAL} > ${MEGA_OUT}/n12.sh && ${SEARCH} -y ${MEGA_OUT}/n12.sh -A H100 -d 12 -t 1 -o ${MEGA_OUT}/n12 --no-plots -q")
# a layout of 3000 layers (3003 bytes) is read whole; one of 5000 is refused, not cut short
nd_cli_test(mega_long_layout 0 "^layers: 1500,1500$" sh -c
            "sh ${MEGA_DIR}/long_layout.sh ${MEGA_OUT}/l3000.sh 3000 && sh ${MEGA_DIR}/layers.sh ${EST} -y ${MEGA_OUT}/l3000.sh -A H100")
nd_cli_test(mega_too_long_value 2 "l5000.sh:1: --pipeline-model-parallel-layout: its value is longer than the 4095 bytes nd reads" sh -c
            "sh ${MEGA_DIR}/long_layout.sh ${MEGA_OUT}/l5000.sh 5000 && ${EST} -y ${MEGA_OUT}/l5000.sh -A H100")
# Megatron's own list for DeepSeek-V3's 61 layers, ([0]*3+[1]*58): the same 671B model
nd_cli_test(mega_moe_freq_megatron_list 0 "^parameters: 671,026,419,200 " sh -c
            "sed -f ${MEGA_DIR}/dsv3_megatron_freq.sed ${DSV3} > ${MEGA_OUT}/mfl.sh && ${EST} -y ${MEGA_OUT}/mfl.sh -A H100")

# ---- real scripts of the second sweep (samples/frameworks/real/README.md; counts by hand there)
set(GPT3 ${MEGA_REAL}/megatron_gpt3_175b.sh)
set(DSV2L ${MEGA_REAL}/megatron_deepseek2_lite_fp8.sh)
set(DSV3MG ${MEGA_REAL}/megatron_deepseekv3.sh)
set(MIX22 ${MEGA_REAL}/mindspeed_mixtral_8x22b_32k.sh)
# GPT-3 175B: no --tokenizer-type beside --merge-file is pretrain_gpt.py's GPT2BPETokenizer
nd_cli_test(mega_gpt3_params 0 "^parameters: 174,604,259,328, " ${EST} -y ${GPT3} -A H100 -d 128)
# its none of --overlap-grad-reduce, --overlap-param-gather, --tp-comm-overlap: each off
nd_cli_test(mega_gpt3_overlaps_off 0
            "overlap +tp_comm_overlap false, ep_comm_overlap false, overlap_grad_reduce false, overlap_param_gather false"
            ${SEARCH} -y ${GPT3} -A H100 -d 128 -t 1 -o ${MEGA_OUT}/gpt3s --no-plots)
# DeepSeek-V2-Lite's FP8 example: MLA without --moe-router-enable-expert-bias has no expert
# bias (9,379,063,808, not 960 more); its DTYPE="bf16" makes bash skip
# if [[ "$DTYPE" == "fp8" ]] and the --fp8-format in it: priced exactly as --set fp8=false
nd_cli_test(mega_dsv2lite_params 0 "^parameters: 9,379,063,808, " ${EST} -y ${DSV2L} -A H100 -d 8)
nd_cli_test(mega_dsv2lite_branch_taken 0 "^same$" sh -c
            "${EST} -y ${DSV2L} -A H100 -d 8 | grep '^  step' > ${MEGA_OUT}/d2.a && ${EST} -y ${DSV2L} -A H100 -d 8 --set fp8=false | grep '^  step' > ${MEGA_OUT}/d2.b && cmp -s ${MEGA_OUT}/d2.a ${MEGA_OUT}/d2.b && echo same")
# a flag under a test nd does not read (a file test) is named, and refused with --strict
nd_cli_test(mega_dsv2lite_branch_strict 2 "megatron_deepseek2_lite_fp8.sh:221: --vocab-size stands in an if/case branch whose test nd does not read \\(--strict\\)"
            ${EST} -y ${DSV2L} -A H100 -d 8 --strict)
# Megatron-LM's DeepSeek-V3 example picks its model in if [ "$MODEL" == ... ] branches and
# defaults MODEL to the 16B: 27 x 584,847,872 + 2 x 32,000 x 2048 + 2048 = 15,921,966,592 by
# hand; '${MOE_LAYER_FREQ}' inside a double-quoted variable it evals; and
# --num-layers-per-virtual-pipeline-stage ${MP_VP} in the else of if [ -z ${MP_VP} ], the
# branch bash does not take when MP_VP is unset (a note says the test read it as empty)
nd_cli_test(mega_dsv3_megatron_params 0 "^parameters: 15,921,966,592, " ${EST} -y ${DSV3MG} -A H100 -d 8)
nd_cli_test(mega_dsv3_megatron_empty_test 0 "megatron_deepseekv3.sh:184: an if test reads \\$MP_VP, which the script does not set, as empty"
            sh -c "${EST} -y ${DSV3MG} -A H100 -d 8 2>&1 >/dev/null")
# MindSpeed's --first-k-dense-replace -1: every layer MoE (Mixtral 8x22B, 140,620,634,112)
nd_cli_test(mega_mix22_params 0 "^parameters: 140,620,634,112, " ${EST} -y ${MIX22} -A A2 -d 64)
# MindSpeed's --context-parallel-algo: ulysses_cp_algo is the all-to-all, priced as cp_comm a2a
nd_cli_test(mega_cp_algo_ulysses 0 "^same$" sh -c
            "sed 's/megatron_cp_algo/ulysses_cp_algo/' ${QWEN72} > ${MEGA_OUT}/uly.sh && ${EST} -y ${MEGA_OUT}/uly.sh -A H100 | grep '^  step' > ${MEGA_OUT}/uly.a && ${EST} -y ${QWEN72} -A H100 --set cp_comm=a2a | grep '^  step' > ${MEGA_OUT}/uly.b && ! ${EST} -y ${QWEN72} -A H100 | grep -qxF \"$(cat ${MEGA_OUT}/uly.a)\" && cmp -s ${MEGA_OUT}/uly.a ${MEGA_OUT}/uly.b && echo same")
# if/elif/else evaluated as bash takes them (tests/mega/branches.sh): the 70B branch (80 layers
# of 8192: Llama 3 70B's published 70,553,706,496), TP 4 > 2 adds --sequence-parallel, the FP8
# branch on DTYPE (unset, so empty) not taken; bash's own arguments agree
nd_cli_test(mega_branches_params 0 "^parameters: 70,553,706,496, " ${EST} -y ${MEGA_DIR}/branches.sh -A H100)
nd_cli_test(mega_branches_strategy 0 "^strategy: DP=4 MP=4 PP=2 .* SP=1 " ${EST} -y ${MEGA_DIR}/branches.sh -A H100)
nd_cli_test(mega_branches_bash_agrees 0 "--num-layers 80 --hidden-size 8192 .*--tensor-model-parallel-size 4 --pipeline-model-parallel-size 2 --use-distributed-optimizer --sequence-parallel$"
            bash ${MEGA_DIR}/bash_launch.sh ${MEGA_DIR}/branches.sh)
nd_cli_test(mega_branches_empty_note 0 "branches.sh:21: an if test reads \\$DTYPE, which the script does not set, as empty: --fp8-format"
            sh -c "${EST} -y ${MEGA_DIR}/branches.sh -A H100 2>&1 >/dev/null")
# blocks of flags in variables the launch command never expands reach no command: the
# script's strategy has no recompute and no SP (RECOMPUTE_ARGS, SP_ARGS are left out), and a
# note names each block; a variable that extends itself ($GPT_ARGS) is still passed
nd_cli_test(mega_unused_vars_strategy 0 "^strategy: DP=1 MP=4 PP=2 .* SP=0 recompute=off "
            ${EST} -y ${MEGA_DIR}/unused_vars.sh -A H100)
nd_cli_test(mega_unused_vars_note 0 "unused_vars.sh:30: RECOMPUTE_ARGS is set but never expanded, so its flags \\(--recompute-granularity, --recompute-method, --recompute-num-layers\\) reach no command" sh -c
            "${EST} -y ${MEGA_DIR}/unused_vars.sh -A H100 2>&1 >/dev/null")
# and the same block once the command expands it: full recompute, 16 layers a stage
nd_cli_test(mega_unused_vars_passed 0 "^strategy: DP=1 MP=4 PP=2 .* SP=1 recompute=full " sh -c
            "sed 's/pretrain_gpt.py \\$GPT_ARGS/pretrain_gpt.py $GPT_ARGS $RECOMPUTE_ARGS \${SP_ARGS}/' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/passed.sh && ${EST} -y ${MEGA_OUT}/passed.sh -A H100")
# MindSpeed names its Hugging Face tokenizer by --tokenizer-name-or-path: a Llama 3 directory
# gives Llama 3's vocabulary, so the model is Llama 3 8B's 8,030,261,248 (Meta's published 8.03B)
nd_cli_test(mega_tokenizer_name_or_path 0 "^parameters: 8,030,261,248," sh -c
            "sed 's|--vocab-size 128256|--tokenizer-type PretrainedFromHF --tokenizer-name-or-path /data/Meta-Llama-3-8B|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/hf_tok.sh && ${EST} -y ${MEGA_OUT}/hf_tok.sh -A H100")
# MindSpeed's 2D tensor parallelism is priced as 1D TP of the same degree, and says so
nd_cli_test(mega_tp_2d_note 0 "--tp-2d \\(MindSpeed's two-dimensional tensor parallelism\\) is priced as 1D TP of degree 4" sh -c
            "sed 's|--disable-bias-linear|--disable-bias-linear --tp-2d --tp-x 2 --tp-y 2|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/tp2d.sh && ${EST} -y ${MEGA_OUT}/tp2d.sh -A H100 2>&1 >/dev/null")
# block recompute of 12 of a stage's 16 layers: priced as full on every layer without -mppb,
# and a note says so
nd_cli_test(mega_partial_block_note 0 "its full recompute counts \\(12 a stage\\) leave layers out \\(stage 0: 12 of 16\\): priced as full recompute on every layer" sh -c
            "sed -e 's/--recompute-num-layers 16/--recompute-num-layers 12/' -e 's/pretrain_gpt.py \\$GPT_ARGS/pretrain_gpt.py $GPT_ARGS $RECOMPUTE_ARGS/' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/part.sh && ${EST} -y ${MEGA_OUT}/part.sh -A H100 2>&1 >/dev/null")
# FP8 switches nd does not price as the script means them are named: MXFP8 priced blockwise,
# --fp8-param-gather and MindSpeed's --reuse-fp32-param not priced
foreach(n IN ITEMS "--fp8-recipe mxfp8 \\(scales per 32 elements, Blackwell's tensor cores\\) is priced as nd's blockwise FP8"
                  "--fp8-param-gather: the FP8 weights' all-gather and memory are not priced"
                  "--reuse-fp32-param: MindSpeed keeps the 16-bit weights inside the fp32 copy's memory: not priced"
                  "--use-mc2: MC2 \\(Ascend's matmul fused with its TP all-gather or reduce-scatter\\) is priced as the GEMM and the collective one after the other")
  string(MD5 id "${n}")
  string(SUBSTRING ${id} 0 6 id)
  nd_cli_test(mega_fp8_notes_${id} 0 "${n}" sh -c
              "sed 's|--disable-bias-linear|--disable-bias-linear --fp8-format e4m3 --fp8-recipe mxfp8 --fp8-param-gather --use-distributed-optimizer --reuse-fp32-param --use-mc2|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/fp8n_${id}.sh && ${EST} -y ${MEGA_OUT}/fp8n_${id}.sh -A B200 2>&1 >/dev/null")
endforeach()
# MindSpeed's Mistral --sliding-window (every one of unused_vars.sh's 32 layers), Gemma 2's
# --interleave-sliding-window (every other: 16) and --post-norm, as best.yaml states the model.
foreach(pair IN ITEMS "sliding-window|32" "interleave-sliding-window|16")
  string(REPLACE "|" ";" p "${pair}")
  list(GET p 0 flag)
  list(GET p 1 layers)
  nd_cli_test(mega_${flag} 0 "^sliding_window: 4096 sliding_layers: ${layers} post_norms: true $" sh -c
              "sed 's|--disable-bias-linear|--disable-bias-linear --${flag} 4096 --post-norm|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/sw_${flag}.sh && ${SEARCH} -y ${MEGA_OUT}/sw_${flag}.sh -A A2 -t 1 -o ${MEGA_OUT}/sw_${flag} --no-plots -v 0 >/dev/null && grep -o 'sliding_[a-z]*: [0-9]*\\|post_norms: true' ${MEGA_OUT}/sw_${flag}/best.yaml | tr '\\n' ' '")
endforeach()
# MindSpeed's hybrid_cp_algo: all-to-alls within --ulysses-degree-in-cp ranks, a ring across them.
# At CP 2 a Ulysses part of 2 is Ulysses alone and of 1 the ring alone: each step equals the other
# algorithm's, to the printed digit.
foreach(pair IN ITEMS "2|ulysses_cp_algo" "1|megatron_cp_algo")
  string(REPLACE "|" ";" p "${pair}")
  list(GET p 0 degree)
  list(GET p 1 algo)
  file(MAKE_DIRECTORY ${MEGA_OUT}/hcp_${degree})
  nd_cli_test(mega_hybrid_cp_${degree} 0 "^same$" sh ${MEGA_DIR}/same_step.sh ${EST} ${MEGA_DIR}/unused_vars.sh
              ${MEGA_OUT}/hcp_${degree}
              "--context-parallel-size 2 --context-parallel-algo hybrid_cp_algo --ulysses-degree-in-cp ${degree}"
              "--context-parallel-size 2 --context-parallel-algo ${algo}" -A A2 -d 16)
endforeach()
# ... and refused where MindSpeed's argument checks refuse it: a Ulysses degree the script's CP
# is not a multiple of (3 in CP 2); without the degree, the ring alone, in a note.
nd_cli_test(mega_hybrid_cp_indivisible 2 "--ulysses-degree-in-cp: 3 does not divide --context-parallel-size 2" sh -c
            "sed 's|--disable-bias-linear|--disable-bias-linear --context-parallel-size 2 --context-parallel-algo hybrid_cp_algo --ulysses-degree-in-cp 3|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/hcp3.sh && ${EST} -y ${MEGA_OUT}/hcp3.sh -A A2 -d 16")
nd_cli_test(mega_hybrid_cp_no_degree 0 "hybrid_cp_algo without --ulysses-degree-in-cp .*: priced as the ring alone" sh -c
            "sed 's|--disable-bias-linear|--disable-bias-linear --context-parallel-size 2 --context-parallel-algo hybrid_cp_algo|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/hcp0.sh && ${EST} -y ${MEGA_OUT}/hcp0.sh -A A2 -d 16 2>&1")
# ... and written back: at 8k nd-search picks CP 1 (the Ulysses degree written 1, which MindSpeed's
# divisibility assert accepts), at 128k CP 8 of Ulysses 2 and a ring of 4. Megatron's a2a+p2p
# with --hierarchical-context-parallel-sizes 2 2 on 32 H100: at 128k CP 2 (one level, written
# a2a, the levels removed), at 512k CP 8 (written 2 4). Each script read back prices what the
# search printed.
set(HCP_MS "--context-parallel-size 2 --context-parallel-algo hybrid_cp_algo --ulysses-degree-in-cp 2")
set(HCP_MG "--context-parallel-size 4 --cp-comm-type a2a+p2p --hierarchical-context-parallel-sizes 2 2")
foreach(case IN ITEMS "ms|8192|A2|16|CP=1 U=1" "ms|131072|A2|16|CP=8 U=2" "mg|131072|H100|32|CP=2 U=-"
                      "mg|524288|H100|32|CP=8 U=2")
  string(REPLACE "|" ";" c "${case}")
  list(GET c 0 form)
  list(GET c 1 seq)
  list(GET c 2 device)
  list(GET c 3 n)
  list(GET c 4 expect)
  string(TOUPPER ${form} FORM)
  file(MAKE_DIRECTORY ${MEGA_OUT}/hcpw_${form}_${seq})
  nd_cli_test(mega_hybrid_cp_write_${form}_${seq} 0 "^${expect} same$" sh ${MEGA_DIR}/hybrid_write.sh ${SEARCH}
              ${EST} ${MEGA_DIR}/unused_vars.sh ${MEGA_OUT}/hcpw_${form}_${seq} ${seq} ${device} ${n} "${HCP_${FORM}}")
endforeach()
# continued.sh states the levels over a line continuation ("2 \\ newline 2"): at CP 1 they go,
# continuation and all, and the script still parses (bash -n) and prices what the search printed.
file(MAKE_DIRECTORY ${MEGA_OUT}/hcpw_hier)
nd_cli_test(mega_hybrid_cp_write_continued 0 "^CP=1 U=- same bash-ok$" sh -c
            "sh ${MEGA_DIR}/continued.sh ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/hier_cp.sh && sh ${MEGA_DIR}/hybrid_write.sh ${SEARCH} ${EST} ${MEGA_OUT}/hier_cp.sh ${MEGA_OUT}/hcpw_hier 8192 H100 32 '' | tr '\\n' ' ' && bash -n ${MEGA_OUT}/hcpw_hier/w/resolved.sh && ! grep -q -- '^ *2$' ${MEGA_OUT}/hcpw_hier/w/resolved.sh && echo bash-ok")
# Megatron's --cp-comm-type: a2a+p2p of levels 4 1 is the all-to-all alone and 1 4 the ring
# (p2p) alone, to the printed digit; allgather is the all-gather (it had been read as the ring).
foreach(pair IN ITEMS "4 1|a2a" "1 4|p2p")
  string(REPLACE "|" ";" p "${pair}")
  list(GET p 0 levels)
  list(GET p 1 type)
  string(REPLACE " " "x" tag "${levels}")
  file(MAKE_DIRECTORY ${MEGA_OUT}/hcp_mg_${tag})
  nd_cli_test(mega_cp_comm_type_levels_${tag} 0 "^same$" sh ${MEGA_DIR}/same_step.sh ${EST} ${MEGA_DIR}/unused_vars.sh
              ${MEGA_OUT}/hcp_mg_${tag}
              "--context-parallel-size 4 --cp-comm-type a2a+p2p --hierarchical-context-parallel-sizes ${levels}"
              "--context-parallel-size 4 --cp-comm-type ${type}" -A H100 -d 32)
endforeach()
nd_cli_test(mega_cp_comm_type_allgather 0 "^same$" sh -c
            "sed 's|--disable-bias-linear|--disable-bias-linear --context-parallel-size 4 --cp-comm-type allgather|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/cpag.sh && sed 's|--disable-bias-linear|--disable-bias-linear --context-parallel-size 4|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/cpag_none.sh && ${EST} -y ${MEGA_OUT}/cpag.sh -A H100 -d 32 | grep '^  step' > ${MEGA_OUT}/cpag.a && ${EST} -y ${MEGA_OUT}/cpag_none.sh -A H100 -d 32 --set cp_comm=allgather | grep '^  step' > ${MEGA_OUT}/cpag.b && ! ${EST} -y ${MEGA_OUT}/cpag_none.sh -A H100 -d 32 --set cp_comm=ring | grep -qxF \"$(cat ${MEGA_OUT}/cpag.a)\" && cmp -s ${MEGA_OUT}/cpag.a ${MEGA_OUT}/cpag.b && echo same")
foreach(case IN ITEMS
    "levels|--hierarchical-context-parallel-sizes 2 4|2|--hierarchical-context-parallel-sizes: the levels' product 8 is not --context-parallel-size 4"
    "divides|--hierarchical-context-parallel-sizes 3|2|--hierarchical-context-parallel-sizes: 3 does not divide --context-parallel-size 4"
    "zero|--hierarchical-context-parallel-sizes 2 0|2|--hierarchical-context-parallel-sizes: the levels' product 0 is not --context-parallel-size 4"
    "huge|--hierarchical-context-parallel-sizes 2 99999999999999999999999 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2|2|--hierarchical-context-parallel-sizes: the levels' product above 1099511627776 is not --context-parallel-size 4"
    "none||0|--cp-comm-type a2a[+]p2p without --hierarchical-context-parallel-sizes .*: priced as the ring alone")
  string(REPLACE "|" ";" c "${case}")
  list(GET c 0 tag)
  list(GET c 1 flags)
  list(GET c 2 status)
  list(GET c 3 message)
  # the refusals on stderr, exit 2; the note beside a priced step, exit 0
  set(to_stdout "")
  if(status EQUAL 0)
    set(to_stdout "2>&1")
  endif()
  nd_cli_test(mega_cp_comm_type_${tag} ${status} "${message}" sh -c
              "sed 's|--disable-bias-linear|--disable-bias-linear --context-parallel-size 4 --cp-comm-type a2a+p2p ${flags}|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/cpl_${tag}.sh && ${EST} -y ${MEGA_OUT}/cpl_${tag}.sh -A H100 -d 32 ${to_stdout}")
endforeach()
nd_cli_test(mega_cp_comm_type_unknown 2 "--cp-comm-type: 'ring' is not p2p, a2a, allgather or a2a[+]p2p" sh -c
            "sed 's|--disable-bias-linear|--disable-bias-linear --context-parallel-size 4 --cp-comm-type ring|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/cpl_ring.sh && ${EST} -y ${MEGA_OUT}/cpl_ring.sh -A H100 -d 32")
# MindSpeed's --virtual-optimizer: AdamW's moments (8 of the optimizer's 12 bytes a local
# parameter, beside the 4-byte master) in host memory. unused_vars.sh on A2 holds 11488.5 MiB of
# optimizer on stage 0 (1/3 master, 2/3 moments = 7659 MiB): "all" leaves the master, 3829.5 MiB;
# 4 GiB leaves 11488.5 - 4096 = 7392.5 MiB.
foreach(pair IN ITEMS "all|3829.5" "4|7392.5")
  string(REPLACE "|" ";" p "${pair}")
  list(GET p 0 size)
  list(GET p 1 mib)
  nd_cli_test(mega_virtual_optimizer_${size} 0 "^\"optimizer\": ${mib}$" sh -c
              "sed 's|--disable-bias-linear|--disable-bias-linear --virtual-optimizer ${size}|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/vo_${size}.sh && ${EST} -y ${MEGA_OUT}/vo_${size}.sh -A A2 --json | tr ',' '\\n' | sed -n 's/^ *\\(\"optimizer\": [0-9.]*\\)/\\1/p' | head -1")
endforeach()
# --attention-backend as Megatron-core means it (AttnBackend): fused is Transformer Engine's cuDNN
# kernel, flash its FlashAttention (the device's best, named in a note), unfused and local the
# unfused path; anything else is refused at its line. nd-search states what attention it priced.
foreach(pair IN ITEMS "fused|cuDNN's fused attention \\(Transformer Engine's\\) \\(the run's"
                      "unfused|unfused \\(flash_attention false" "local|unfused \\(flash_attention false"
                      "auto|.*\\(the framework's")
  string(REPLACE "|" ";" pair "${pair}")
  list(GET pair 0 backend)
  list(GET pair 1 want)
  nd_cli_test(mega_attention_backend_${backend} 0 "attention +${want}" sh -c
              "sed 's|--disable-bias-linear|--disable-bias-linear --attention-backend ${backend}|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/attn_${backend}.sh && ${SEARCH} -y ${MEGA_OUT}/attn_${backend}.sh -A H100 -d 8 -t 1 -o ${MEGA_OUT}/attn_${backend} --no-plots")
endforeach()
nd_cli_test(mega_attention_backend_flash 0 "--attention-backend flash: Transformer Engine's FlashAttention, priced as the device's best kernel" sh -c
            "sed 's|--disable-bias-linear|--disable-bias-linear --attention-backend flash|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/attn_flash.sh && ${EST} -y ${MEGA_OUT}/attn_flash.sh -A H100 -d 8 2>&1 >/dev/null")
nd_cli_test(mega_attention_backend_bad 2 "attn_bad.sh:[0-9]+: --attention-backend: 'cudnn' is not flash, fused, unfused, local or auto" sh -c
            "sed 's|--disable-bias-linear|--disable-bias-linear --attention-backend cudnn|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/attn_bad.sh && ${EST} -y ${MEGA_OUT}/attn_bad.sh -A H100 -d 8")
# values that are no values are refused at their line, not read as a default: --clip-grad abc
# (was: clipping on), a launcher's --nnodes -8 (was: "states no world size", -d taken)
nd_cli_test(mega_clip_grad_bad 2 "clip.sh:[0-9]+: --clip-grad: 'abc' is not a norm >= 0" sh -c
            "sed 's|--disable-bias-linear|--disable-bias-linear --clip-grad abc|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/clip.sh && ${EST} -y ${MEGA_OUT}/clip.sh -A H100 -d 8")
nd_cli_test(mega_nnodes_bad 2 "nodes.sh:37: --nnodes: '-8' is not a count of nodes" sh -c
            "sed 's|^NNODES=1$|NNODES=-8|' ${MEGA_DIR}/unused_vars.sh > ${MEGA_OUT}/nodes.sh && ${EST} -y ${MEGA_OUT}/nodes.sh -A H100")

# --recompute-method block over 0 layers checkpoints none (Megatron-core's
# TransformerBlock._checkpointed_forward): the run trains without recompute, and says so;
# over 2 layers a stage it is full recompute's per-stage counts
nd_cli_test(mega_recompute_block_zero 0 "recompute=off" sh -c
            "sed 's/--recompute-granularity selective/--recompute-granularity full --recompute-method block --recompute-num-layers 0/' ${SAMPLES}/frameworks/megatron_llama3_8b.sh > ${MEGA_OUT}/rb0.sh && ${EST} -y ${MEGA_OUT}/rb0.sh -A H100 -q")
nd_cli_test(mega_recompute_block_zero_note 0 "rb0z.sh:[0-9]+: --recompute-method block --recompute-num-layers 0 recomputes no layer: priced without recompute" sh -c
            "sed 's/--recompute-granularity selective/--recompute-granularity full --recompute-method block --recompute-num-layers 0/' ${SAMPLES}/frameworks/megatron_llama3_8b.sh > ${MEGA_OUT}/rb0z.sh && ${EST} -y ${MEGA_OUT}/rb0z.sh -A H100 2>&1")
nd_cli_test(mega_recompute_block_two 0 "recompute=full" sh -c
            "sed 's/--recompute-granularity selective/--recompute-granularity full --recompute-method block --recompute-num-layers 2/' ${SAMPLES}/frameworks/megatron_llama3_8b.sh > ${MEGA_OUT}/rb2.sh && ${EST} -y ${MEGA_OUT}/rb2.sh -A H100 -q")
# nd-search lists how it read the script apart from what it does not represent
nd_cli_test(mega_search_read_as 0 "  read as +[^ ]*rbs.sh:[0-9]+: --recompute-method block --recompute-num-layers 0 recomputes no layer" sh -c
            "sed 's/--recompute-granularity selective/--recompute-granularity full --recompute-method block --recompute-num-layers 0/' ${SAMPLES}/frameworks/megatron_llama3_8b.sh > ${MEGA_OUT}/rbs.sh && ${SEARCH} -y ${MEGA_OUT}/rbs.sh -A H100 -t 1 -o ${MEGA_OUT}/rbs --no-plots 2>/dev/null")
# Megatron's DDP and Transformer Engine switches read into their train keys and written back in
# best.yaml: the NaN check off, averaging collectives, no FP8 weight cache (three lines)
nd_cli_test(mega_ddp_switches 0 "^3$" sh -c
            "sed 's/--use-mcore-models/--use-mcore-models --no-check-for-nan-in-loss-and-grad --ddp-average-in-collective --disable-parameter-transpose-cache/' ${SAMPLES}/frameworks/megatron_llama3_8b.sh > ${MEGA_OUT}/ddp.sh && ${SEARCH} -y ${MEGA_OUT}/ddp.sh -A H100 -t 1 -o ${MEGA_OUT}/ddp --no-plots -q >/dev/null 2>&1 && grep -cE '^  (check_for_nan_in_grad: false|average_in_collective: true|fp8_weight_cache: false)$' ${MEGA_OUT}/ddp/best.yaml")
