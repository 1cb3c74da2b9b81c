# End-to-end checks of the binaries: exit status and the one-line message.
set(EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh)
set(SAMPLES ${PROJECT_SOURCE_DIR}/samples)
set(BAD ${CMAKE_CURRENT_SOURCE_DIR}/bad)
set(EST $<TARGET_FILE:nd-estimate>)
set(LLAMA ${SAMPLES}/runs/llama3-8b.yaml)

function(nd_cli_test name status pattern)
  add_test(NAME ${name} COMMAND ${EXPECT} ${status} ${pattern} ${ARGN})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 120)
endfunction()

nd_cli_test(cli_estimate_version 0 "^nd-estimate [0-9]" ${EST} --version)
nd_cli_test(cli_estimate_help 0 "--strategy" ${EST} --help)
nd_cli_test(cli_estimate_table 0 "step +[0-9.]+ +100.0 %" ${EST} -y ${LLAMA})
nd_cli_test(cli_estimate_json 0 "\"params_total\": 8030261248" ${EST} -y ${LLAMA} --json)
nd_cli_test(cli_estimate_bare_config 0 "fits" ${EST} -y ${SAMPLES}/models/llama3-8b.json -A H100
            --seq 4096 --strategy "DP=8 MB=4 OP=8 ZERO=3 recompute=full")
nd_cli_test(cli_estimate_bad_flag 2 "unknown option '--frobnicate'" ${EST} --frobnicate)
nd_cli_test(cli_estimate_missing_run 2 "nope.yaml: cannot open" ${EST} -y nope.yaml -A A3)
nd_cli_test(cli_estimate_no_run 2 "-y RUN is required" ${EST} -A A3)
nd_cli_test(cli_estimate_unknown_device 2 "-A Z9: unknown device \\(known: V100, A100, A100-40GB, H100" ${EST} -y ${LLAMA} -A Z9)
# The device a run file names is reported at its line and key, not as a flag never given
nd_cli_test(cli_estimate_unknown_device_file 2 "run/device_unknown.yaml:9: cluster.device: unknown device 'ZZ' \\(known: V100, "
            ${EST} -y ${BAD}/run/device_unknown.yaml)
nd_cli_test(cli_search_unknown_device_file 2 "run/device_unknown.yaml:9: cluster.device: unknown device 'ZZ'"
            $<TARGET_FILE:nd-search> -y ${BAD}/run/device_unknown.yaml -t 1 --no-progress)
nd_cli_test(cli_estimate_unknown_device_flag_wins 2 "^nd-estimate: -A Z9: unknown device"
            ${EST} -y ${BAD}/run/device_unknown.yaml -A Z9)
# --set device=NAME is named as given (it was reported as -A, a flag never given); over the
# run file's device, it is the one refused; -A wins over it
nd_cli_test(cli_estimate_unknown_device_set 2 "^nd-estimate: --set device=ZZ: unknown device \\(known: V100, "
            ${EST} -y ${LLAMA} --set device=ZZ)
nd_cli_test(cli_search_unknown_device_set 2 "^nd-search: --set device=ZZ: unknown device \\(known: V100, "
            $<TARGET_FILE:nd-search> -y ${LLAMA} --set device=ZZ -t 1 --no-progress)
nd_cli_test(cli_estimate_unknown_device_set_over_file 2 "^nd-estimate: --set device=Z9: unknown device"
            ${EST} -y ${BAD}/run/device_unknown.yaml --set device=Z9)
nd_cli_test(cli_estimate_unknown_device_flag_over_set 2 "^nd-estimate: -A Z8: unknown device"
            ${EST} -y ${LLAMA} --set device=Z9 -A Z8)
nd_cli_test(cli_estimate_no_strategy_file 2 "run/no_strategy.yaml: no strategy: give --strategy"
            ${EST} -y ${BAD}/run/no_strategy.yaml)
nd_cli_test(cli_estimate_bad_strategy 2 "--strategy: strategy key 'XP' is unknown" ${EST} -y ${LLAMA}
            --strategy "XP=2")
nd_cli_test(cli_estimate_impossible 2 "MP=3: the 32 attention heads" ${EST} -y ${LLAMA} -d 48
            -b 512 --strategy "DP=8 MP=3 PP=2 MB=64")
nd_cli_test(cli_estimate_devices_mismatch 2 "but the cluster has 128" ${EST} -y ${LLAMA} -d 128)
nd_cli_test(cli_estimate_unknown_key 2 "run_unknown_key.yaml:5: unknown train key 'sequence_parallel'"
            ${EST} -y ${BAD}/run_unknown_key.yaml -A H100 --strategy "DP=1")
nd_cli_test(cli_estimate_bad_value 2 "run_bad_value.yaml:5: key 'dropout': 'lots'" ${EST}
            -y ${BAD}/run_bad_value.yaml -A H100 --strategy "DP=1")
nd_cli_test(cli_estimate_malformed_yaml 2 "run_malformed.yaml:[0-9]+:[0-9]+:" ${EST}
            -y ${BAD}/run_malformed.yaml -A H100)
nd_cli_test(cli_estimate_truncated_json 2 "config_truncated.json:[0-9]+: not valid JSON" ${EST}
            -y ${BAD}/config_truncated.json -A H100 --strategy "DP=1")
nd_cli_test(cli_estimate_wrong_type_json 2 "'hidden_size': 'four thousand' is not a whole number"
            ${EST} -y ${BAD}/config_wrong_type.json -A H100 --strategy "DP=1")
nd_cli_test(cli_estimate_bad_device_file 2 "devices_bad_field.yaml:[0-9]+: device X1: field 'hbm_gib'"
            ${EST} -y ${LLAMA} --device-file ${BAD}/devices_bad_field.yaml -A X1)
nd_cli_test(cli_estimate_device_file 0 "on 64 x V100" ${EST} -y ${LLAMA}
            --device-file ${SAMPLES}/devices/v100.yaml -A V100)
nd_cli_test(cli_estimate_nd_ratios 2 "no '_nd' stamp.*refit the round: nd-fit -y RUN --real_csv real_all.csv --mode sums" ${EST} -y ${LLAMA}
            -c ${BAD}/ratios_nd_units.json)
nd_cli_test(cli_estimate_negative_ratio 2 "ratio 'MP_COMM' must be a positive finite number" ${EST}
            -y ${LLAMA} -c ${BAD}/ratios_negative.json)
nd_cli_test(cli_estimate_bad_budget 2 "-M: memory_budget: '58 parsecs'" ${EST} -y ${LLAMA} -M "58 parsecs")
nd_cli_test(cli_estimate_bad_override 2 "--seq: seq_len: 'long' is not a whole number" ${EST} -y ${LLAMA} --seq long)

# nd-compare and nd-fit
set(CMP $<TARGET_FILE:nd-compare>)
set(FIT $<TARGET_FILE:nd-fit>)
set(ROUND ${SAMPLES}/rounds/llama3-8b-h100.csv)
nd_cli_test(cli_compare_version 0 "^nd-compare [0-9]" ${CMP} --version)
nd_cli_test(cli_fit_version 0 "^nd-fit [0-9]" ${FIT} --version)
nd_cli_test(cli_compare_round 0 "Top-k agreement" ${CMP} -y ${LLAMA} --real_csv ${ROUND}
            -o ${CMAKE_CURRENT_BINARY_DIR}/cli_compare)
nd_cli_test(cli_compare_no_csv 2 "--real_csv ROUND.csv is required" ${CMP} -y ${LLAMA})
# Without -o the outputs go beside the round, not into the working directory.
add_test(NAME cli_compare_writes_beside_round
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/compare_beside_input.sh ${CMP} ${LLAMA} ${ROUND})
set_tests_properties(cli_compare_writes_beside_round PROPERTIES ENVIRONMENT "${ND_TEST_ENV}"
                     PASS_REGULAR_EXPRESSION "(^|\n)ok")
nd_cli_test(cli_compare_bad_cell 2 "round_bad_cell.csv:3: column 'comp': 'abc' is not a number"
            ${CMP} -y ${LLAMA} --real_csv ${BAD}/round_bad_cell.csv)
nd_cli_test(cli_compare_unknown_column 2 "round_unknown_column.csv:1: column 'latency' is not one nd reads"
            ${CMP} -y ${LLAMA} --real_csv ${BAD}/round_unknown_column.csv)
nd_cli_test(cli_compare_bad_row 2 "round_bad_strategy.csv:2: this row's strategy cannot be priced"
            ${CMP} -y ${LLAMA} --real_csv ${BAD}/round_bad_strategy.csv)
nd_cli_test(cli_compare_bad_format 2 "png, svg or pdf|not a plot format|format" ${CMP} -y ${LLAMA}
            --real_csv ${ROUND} --format bmp)
nd_cli_test(cli_fit_parts 0 "fitted on comp" ${FIT} -y ${LLAMA} --real_csv ${ROUND} --robust
            --write_ratios ${CMAKE_CURRENT_BINARY_DIR}/cli_fit_ratios.json)
nd_cli_test(cli_fit_bad_mode 2 "--mode fast: expected parts, total, sums or auto" ${FIT} -y ${LLAMA}
            --real_csv ${ROUND} --mode fast)
nd_cli_test(cli_fit_ratios_flag 2 "-c does not apply" ${FIT} -y ${LLAMA} --real_csv ${ROUND}
            -c ${SAMPLES}/ratios/llama3-8b-h100.json)
nd_cli_test(cli_estimate_with_ratios 0 "corrected by the ratios file" ${EST} -y ${LLAMA}
            -c ${SAMPLES}/ratios/llama3-8b-h100.json)
# A failed fit leaves an existing ratios file byte for byte as it was.
add_test(NAME cli_fit_failure_keeps_ratios
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/fit_keeps_ratios.sh ${FIT} ${LLAMA} ${BAD}/round_two_rows.csv)
set_tests_properties(cli_fit_failure_keeps_ratios PROPERTIES ENVIRONMENT "${ND_TEST_ENV}")

# nd-fit's identifiability rules on issue 13's two failing cases, --hold auto, the fitted device.
nd_cli_test(cli_fit_one_strategy 2 "1 distinct strategy cannot fit and check 4 coefficients on time \\(COMPUTE, DP_REDUCE, OPTIMIZER, OVERHEAD\\)" ${FIT}
            -y ${LLAMA} --real_csv ${BAD}/round_one_strategy.csv)
set(DLPERF_RUN ${SAMPLES}/runs/dlperf-gpt-h2304-l24.yaml)
nd_cli_test(cli_fit_dlperf_h2304_refused 2 "5 distinct strategies cannot fit and check 6 coefficients on time .*it identifies COMPUTE, DP_REDUCE with --hold"
            ${FIT} -y ${DLPERF_RUN} --real_csv ${SAMPLES}/rounds/dlperf-gpt-h2304-l24.csv)
add_test(NAME cli_fit_refusal_keeps_ratios
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/fit_keeps_ratios.sh ${FIT} ${DLPERF_RUN} ${SAMPLES}/rounds/dlperf-gpt-h2304-l24.csv)
set_tests_properties(cli_fit_refusal_keeps_ratios PROPERTIES ENVIRONMENT "${ND_TEST_ENV}")
nd_cli_test(cli_fit_hold_auto 0 "OVERHEAD +1.0000   held at 1: not identified by the round \\(--hold auto\\)" ${FIT}
            -y ${SAMPLES}/runs/dlperf-gpt-h1536-l16.yaml --real_csv ${SAMPLES}/rounds/dlperf-gpt-h1536-l16.csv --hold auto)
nd_cli_test(cli_fit_bad_hold 2 "--hold LATENCY: 'LATENCY' is not a ratio key" ${FIT} -y ${LLAMA} --real_csv ${ROUND}
            --hold LATENCY)
add_test(NAME cli_fit_device_roundtrip
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/fit_device_roundtrip.sh $<TARGET_FILE:nd-fit> ${EST} ${SAMPLES})
set_tests_properties(cli_fit_device_roundtrip PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" PASS_REGULAR_EXPRESSION "(^|\n)ok")

# nd-fit --suggest: D-optimal picks, never a profiled strategy, deterministic; refusals name strategies.
add_test(NAME cli_fit_suggest COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/fit_suggest.sh $<TARGET_FILE:nd-fit> ${SAMPLES})
set_tests_properties(cli_fit_suggest PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" PASS_REGULAR_EXPRESSION "(^|\n)ok")

# The nightly job: provenance, history and drift in the ratios and device files.
add_test(NAME cli_fit_nightly COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/nightly.sh $<TARGET_FILE:nd-fit> ${EST} ${SAMPLES})
set_tests_properties(cli_fit_nightly PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" PASS_REGULAR_EXPRESSION "(^|\n)ok")

# What -c carries from the fit's uncertainty: intervals and odds, deterministic.
add_test(NAME cli_calibrated_outputs
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/calibrated_outputs.sh $<TARGET_FILE:nd-fit> ${EST}
                 $<TARGET_FILE:nd-compare> $<TARGET_FILE:nd-search> ${SAMPLES})
set_tests_properties(cli_calibrated_outputs PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" PASS_REGULAR_EXPRESSION "(^|\n)ok")

# nd-search
set(SEARCH $<TARGET_FILE:nd-search>)
nd_cli_test(cli_search_version 0 "^nd-search [0-9]" ${SEARCH} --version)
nd_cli_test(cli_search_help 0 "-ar" ${SEARCH} --help)
nd_cli_test(cli_search_top 0 "Top 3 of [0-9]+ fitting" ${SEARCH} -y ${LLAMA} -d 64 -b 512 -t 3 --no-progress)
nd_cli_test(cli_search_nd_dims 0 "Top 2 of" ${SEARCH} -y ${LLAMA} -d 64 -b 512 -t 2 -l DP MP PP --no-progress)
nd_cli_test(cli_search_no_batch 2 "no strategy reaches a global batch of 2520 on 5128 devices" ${SEARCH}
            -y ${SAMPLES}/runs/mt-nlg-530b.yaml --no-progress)
nd_cli_test(cli_search_nothing_fits 2 "nothing fits the 1024 MiB budget: the least any strategy needs is"
            ${SEARCH} -y ${LLAMA} -d 8 -b 64 -M 1GB --no-progress)
nd_cli_test(cli_search_bad_dim 2 "-l XP: not a dimension" ${SEARCH} -y ${LLAMA} -d 8 -b 64 -l XP)
nd_cli_test(cli_search_ao_needs_ar 2 "-ao needs -ar" ${SEARCH} -y ${LLAMA} -d 8 -b 64 -ao)
nd_cli_test(cli_search_rp_needs_ar 2 "-rp needs -ar" ${SEARCH} -y ${LLAMA} -d 8 -b 64 -rp -o ${CMAKE_CURRENT_BINARY_DIR}/x)
nd_cli_test(cli_search_bad_threads 2 "-j: '0' is not a whole number of threads from 1 to 256" ${SEARCH} -y ${LLAMA} -d 8 -b 64 -j 0)
nd_cli_test(cli_search_too_many_threads 2 "-j: '300' is not a whole number of threads from 1 to 256" ${SEARCH} -y ${LLAMA} -d 8 -b 64 -j 300)
nd_cli_test(cli_search_no_gbs 2 "no global batch" ${SEARCH} -y ${SAMPLES}/models/llama3-8b.json -A H100 -d 8)
add_test(NAME cli_search_same_output_any_threads
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/search_same_output.sh ${SEARCH} ${LLAMA})
set_tests_properties(cli_search_same_output_any_threads PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 300)
add_test(NAME cli_classified_rows_load_in_compare
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/classify_then_compare.sh $<TARGET_FILE:nd-classify>
                 ${CMP} ${LLAMA} ${CMAKE_CURRENT_SOURCE_DIR}/data/shared/traces)
set_tests_properties(cli_classified_rows_load_in_compare PROPERTIES ENVIRONMENT "${ND_TEST_ENV}")
nd_cli_test(cli_search_config 0 "Top 3 of [0-9]+ fitting" ${SEARCH} -y ${LLAMA} -s ${SAMPLES}/search/dense_llm_search.yaml
            -t 3 --no-progress)
nd_cli_test(cli_search_config_unknown_key 2 "search_unknown_key.yaml:3: unknown parallelism key 'pq'" ${SEARCH}
            -y ${LLAMA} -s ${BAD}/search_unknown_key.yaml)
nd_cli_test(cli_search_config_cluster_key 2 "search_cluster_unknown_key.yaml:3: unknown cluster key 'gpus_per_node'"
            ${SEARCH} -y ${LLAMA} -s ${BAD}/search_cluster_unknown_key.yaml)
# ND keeps the best strategy outside a search config's lists when nothing within them fits
nd_cli_test(cli_search_limits_not_batch 0 "^Parallelism: dp auto, tp [[]3[]], .*[(]nothing within the lists fitted: searched beyond them[)]$"
            ${SEARCH} -y ${LLAMA} -d 64 -b 512 -s ${CMAKE_CURRENT_SOURCE_DIR}/data/search/tp3.yaml)
add_test(NAME cli_search_config_precedence
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/search_config_precedence.sh ${SEARCH} ${LLAMA}
                 ${CMAKE_CURRENT_SOURCE_DIR}/data/search)
set_tests_properties(cli_search_config_precedence PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 300)
nd_cli_test(cli_search_config_bad_list 2 "search_bad_list.yaml:2: list item 'two'" ${SEARCH}
            -y ${LLAMA} -s ${BAD}/search_bad_list.yaml)
nd_cli_test(cli_estimate_fp8_without_fp8 2 "fp8: device A100 has no FP8 tensor cores" ${EST} -y ${LLAMA} -A A100
            --set fp8=true)

# ND's spellings (docs/nd-compat.md): '_' and '-' alike, one dash or two, --no-X forms,
# `-v N` as one option, ND_JOBS, ND's flags of another binary named in a note. The numbers
# must be those of the plain spelling: the same strategy, the same step.
nd_cli_test(cli_spelling_dashes 0 "on 64 x H100" ${EST} --yaml-config ${LLAMA} --device-type H100
            -max-mem 80GB --mem-for-ppb 1GB)
nd_cli_test(cli_spelling_verbosity_word 0 "step +[0-9.]+ +100.0 %" ${EST} -y ${LLAMA} -v 2)
nd_cli_test(cli_spelling_verbosity_range 2 "-v: '7' is not a level from 0 to 6" ${EST} -y ${LLAMA} -v 7)
nd_cli_test(cli_spelling_no_switch 0 "Top 1 of 9 fitting" ${SEARCH} -y ${LLAMA} -d 64 -b 512 -t 1
            -l DP MP PP -ar --no-auto_recompute --no-progress)
nd_cli_test(cli_spelling_foreign_note 0 "step +[0-9.]+ +100.0 %" ${EST} -y ${LLAMA} -l DP MP -t 3
            --real_csv none.csv)
add_test(NAME cli_spelling_nd_jobs COMMAND ${EXPECT} 2 "ND_JOBS: 'many' is not a whole number"
         ${CMAKE_COMMAND} -E env ND_JOBS=many ${EST} -y ${LLAMA})

# Issue 17: outputs never replace inputs, a run's outputs commit together, long paths, and
# signals that remove the run's temporaries.
add_test(NAME cli_outputs_commit_together
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/outputs_commit_together.sh
                 $<TARGET_FILE_DIR:nd-search> ${SAMPLES})
set_tests_properties(cli_outputs_commit_together PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 300
                     PASS_REGULAR_EXPRESSION ", 0 failed")
add_test(NAME cli_signals_remove_temporaries
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/signals_remove_temporaries.sh
                 $<TARGET_FILE_DIR:nd-search> ${SAMPLES})
set_tests_properties(cli_signals_remove_temporaries PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 300
                     PASS_REGULAR_EXPRESSION ", 0 failed")
# ND's -ar --recompute MODES: each layer chooses among MODES only. With selective alone the
# plan of best.yaml runs every one of Llama-3-8B's 32 layers selective ([off, selective, full]).
# -ar with --recompute selective: every layer of every stage selective (off and full counts 0)
add_test(NAME cli_search_ar_modes COMMAND sh -c "rm -rf \"$1\" && \"$0\" -y \"$2\" -d 64 -b 512 -t 1 -ar --recompute selective -M 40GB -o \"$1\" --no-plots --no-progress >/dev/null && grep -q 'dense: \\[0, [1-9][0-9]*, 0\\]' \"$1/best.yaml\" && ! grep 'dense: \\[' \"$1/best.yaml\" | grep -qv 'dense: \\[0, [0-9]*, 0\\]'"
         ${SEARCH} ${CMAKE_CURRENT_BINARY_DIR}/ar_modes ${LLAMA})


# Issue 17: every number checked where it enters (flags), each field stated once, names
# that are printable UTF-8 (a 16-character Chinese name is 48 bytes and is accepted).
nd_cli_test(cli_search_top_huge 2 "-t '1e300': not a whole number in \\[1, 1000000000\\]" ${SEARCH} -y ${LLAMA}
            -d 8 -b 64 -t 1e300)
nd_cli_test(cli_search_threads_257 2 "-j: '257' is not a whole number of threads from 1 to 256" ${SEARCH}
            -y ${LLAMA} -d 8 -b 64 -j 257)
nd_cli_test(cli_search_overlap_above_one 2 "--host_link_overlap '2': more than 1" ${SEARCH} -y ${LLAMA}
            -d 8 -b 64 -ar -ao --host_link_overlap 2)
nd_cli_test(cli_estimate_budget_huge 2 "memory_budget: '1.7e308TB' is not a size up to 1 PiB" ${EST}
            -y ${LLAMA} -M 1.7e308TB)
nd_cli_test(cli_estimate_strategy_twice 2 "strategy key 'dp' sets DP a second time" ${EST} -y ${LLAMA}
            --strategy "DP=8 dp=4")
nd_cli_test(cli_estimate_strategy_mp_tp 2 "strategy key 'TP' sets MP a second time" ${EST} -y ${LLAMA}
            --strategy "MP=1 TP=4")
nd_cli_test(cli_estimate_utf8_device_name 0 "on 64 x 加速器加速器加速器加速器加速器加" ${EST} -y ${LLAMA}
            --device-file ${BAD}/devices/utf8_name_16.yaml -A 加速器加速器加速器加速器加速器加)

# nd-search marks winners that fit by less than the calibration's memory error (issue 12).
add_test(NAME cli_search_memory_error_flag
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/search_memory_error_flag.sh $<TARGET_FILE:nd-fit>
                 ${SEARCH} ${SAMPLES})
set_tests_properties(cli_search_memory_error_flag PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 120)
add_test(NAME cli_messages_keep_their_reason
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/messages.sh $<TARGET_FILE_DIR:nd-search> ${SAMPLES})
set_tests_properties(cli_messages_keep_their_reason PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION ", 0 failed")
# Issue 17: every file nd writes read back by the binary that consumes it, at the limits too.
add_test(NAME cli_round_trip
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/round_trip.sh $<TARGET_FILE_DIR:nd-search> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_round_trip PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 300
                     PASS_REGULAR_EXPRESSION ", 0 failed")

# torchtitan's fsdp_reshard_after_forward, read from its TOML: the gathered weights kept under PP.
add_test(NAME cli_torchtitan_reshard_after_forward
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/torchtitan_reshard.sh $<TARGET_FILE:nd-estimate> ${SAMPLES})
set_tests_properties(cli_torchtitan_reshard_after_forward PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 60)
add_test(NAME cli_torchtitan_npu_virtual_optimizer
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/torchtitan_npu.sh $<TARGET_FILE:nd-estimate> ${SAMPLES})
set_tests_properties(cli_torchtitan_npu_virtual_optimizer PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 60)

# Every published run that trained fits (bench_fidelity's refusal counts; issue 12).
add_test(NAME cli_trained_runs_fit
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/trained_runs_fit.sh $<TARGET_FILE:bench_fidelity>)
set_tests_properties(cli_trained_runs_fit PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 120)

# Issue 24: the shared flags (-h --version -v N -q -o DIR -V -M -c) through each of the six
# programs, with the outcome docs/cli.md's table gives each.
add_test(NAME cli_shared_flags
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/shared_flags.sh $<TARGET_FILE_DIR:nd-plot> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_shared_flags PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" SKIP_RETURN_CODE 77 TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "(^|\n)ok")

# Issue 24's "done when": on every published configuration (samples/published/) and the demo's
# searches, the top 5 are five distinct layouts, each with its interval, plan and headroom, in the
# terminal, the CSV, the plot's data and the report.
add_test(NAME cli_published_answers
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/published_answers.sh $<TARGET_FILE_DIR:nd-search> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_published_answers PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" SKIP_RETURN_CODE 77 TIMEOUT 600
                     PASS_REGULAR_EXPRESSION "(^|\n)ok")
# A run file whose header names the flags of the script it came from (a MindSpeed-LLM row's
# "--num-layers 12") is still nd's run file: flags in comment lines, or in a .yaml, do not make
# it a launch script (it had been read as one: "no --num-layers: not Megatron arguments").
nd_cli_test(cli_run_file_naming_flags 0 "^ *step +[0-9.]+ +100.0 %" sh -c
            "(echo '# from a script: --num-layers 12 --hidden-size 6144' && sed 's|[.][.]/models|${SAMPLES}/models|' ${LLAMA}) > ${CMAKE_CURRENT_BINARY_DIR}/flags_in_comment.yaml && ${EST} -y ${CMAKE_CURRENT_BINARY_DIR}/flags_in_comment.yaml | grep '^ *step'")
# Ulysses gives each rank whole heads: Llama 3 8B's 32 do not divide over MP 8 x CP 8 of
# all-to-alls (refused); on Megatron (Transformer Engine) its 8 K/V heads must divide too: not
# over MP 2 x a Ulysses part of 8, but over MP 2 x 4 (priced).
nd_cli_test(cli_cp_a2a_heads 2 "CP=8 with its all-to-alls [(]cp_comm a2a[)]: the 32 attention heads do not divide over MP x the all-to-all group = 64 ranks"
            ${EST} -y ${LLAMA} -A H100 -d 64 --strategy "DP=1 MP=8 PP=1 CP=8 MB=512" --set cp_comm=a2a)
nd_cli_test(cli_cp_hybrid_heads 0 "^ +step +[0-9.]+ +100.0 %" sh -c
            "${EST} -y ${LLAMA} -A H100 -d 64 --strategy 'DP=4 MP=2 PP=1 CP=8 MB=128' --set cp_comm=hybrid --set cp_ulysses_degree=4 | grep '^  step' && ${EST} -y ${LLAMA} -A H100 -d 64 --strategy 'DP=4 MP=2 PP=1 CP=8 MB=128' --set cp_comm=hybrid --set cp_ulysses_degree=8 2>&1 | grep -q 'the 8 K/V heads do not divide over MP x the all-to-all group = 16 ranks'")
# ... and nd-search ranks no such layout: every row of a 128k search on 64 H100 with
# all-to-all CP has MP x CP dividing the 8 K/V heads (78 of 581 rows did not divide even the
# 32 query heads, before)
nd_cli_test(cli_search_cp_a2a_heads 0 "^bad 0 rows [1-9][0-9]*$" sh -c
            "${SEARCH} -y ${LLAMA} -A H100 -d 64 -b 64 --seq 131072 --set cp_comm=a2a -o ${CMAKE_CURRENT_BINARY_DIR}/a2a_heads --no-plots -q --no-what-if >/dev/null && awk -F, 'NR > 1 { n++ } NR > 1 && 8 % ($4 * $5) { bad++ } END { print \"bad\", bad + 0, \"rows\", n }' ${CMAKE_CURRENT_BINARY_DIR}/a2a_heads/ranking.csv")
nd_cli_test(cli_search_what_if_cp 0 "^ok [0-9.]+$" sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/what_if_cp.sh ${SEARCH} ${LLAMA})
# cp_comm hybrid without its all-to-all groups' size is refused, not priced as Ulysses alone
nd_cli_test(cli_cp_hybrid_needs_degree 2 "llama3-8b.yaml: cp_comm 'hybrid' needs cp_ulysses_degree"
            ${EST} -y ${LLAMA} -A H100 --set cp_comm=hybrid)
add_test(NAME cli_mf_hybrid_cp
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/mf_hybrid_cp.sh $<TARGET_FILE:nd-estimate> ${SAMPLES}
                 $<TARGET_FILE:nd-search>)
set_tests_properties(cli_mf_hybrid_cp PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 60 PASS_REGULAR_EXPRESSION "^ok")
