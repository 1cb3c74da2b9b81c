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
nd_cli_test(cli_estimate_bad_flag 2 "unknown or incomplete option" ${EST} --frobnicate)
nd_cli_test(cli_estimate_missing_run 2 "nope.yaml: cannot open" ${EST} -y nope.yaml -A A3)
nd_cli_test(cli_estimate_no_run 2 "-y RUN is required" ${EST} -A A3)
nd_cli_test(cli_estimate_unknown_device 2 "-A Z9: unknown device \\(known: A2, A3" ${EST} -y ${LLAMA} -A Z9)
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
nd_cli_test(cli_estimate_nd_ratios 2 "looks like ND's ratios" ${EST} -y ${LLAMA}
            -c ${BAD}/ratios_nd_units.json)
nd_cli_test(cli_estimate_negative_ratio 2 "ratio 'MP_COMM' must be a positive finite number" ${EST}
            -y ${LLAMA} -c ${BAD}/ratios_negative.json)
nd_cli_test(cli_estimate_bad_budget 2 "-M: memory_budget: '58 parsecs'" ${EST} -y ${LLAMA} -M "58 parsecs")
nd_cli_test(cli_estimate_bad_override 2 "--seq_len: seq_len: 'long'" ${EST} -y ${LLAMA} --seq long)
