# Issue 27 (reliability, round three): hangs, lost or lying outputs, bounds. Each test fails
# before its fix. Shell tests take the binaries' directory and the samples.
set(REL_BIN $<TARGET_FILE_DIR:nd-search>)
function(nd_rel_script name script)
  add_test(NAME ${name} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/${script} ${REL_BIN} ${SAMPLES} ${ARGN})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 300
                       PASS_REGULAR_EXPRESSION ", 0 failed")
endfunction()

# Locks: one file named twice refused up front; X/Y swapped never deadlock; nothing created.
nd_rel_script(cli_rel_fit_locks fit_locks.sh)
# fit.history as real numbers (round trip with the first fit's values) and bounded.
nd_rel_script(cli_rel_fit_history fit_history.sh)
# Outputs named through a symlink are written through it (the link stays).
nd_rel_script(cli_rel_symlink_outputs symlink_outputs.sh ${CMAKE_CURRENT_SOURCE_DIR}/data/classify/rank2.pt.trace.json)
# --write_device writes only files --device-file reads: paths, names, history keys.
nd_rel_script(cli_rel_fit_device_names fit_device_names.sh)
# nd-classify --log --csv writes only rows nd-compare reads; what it leaves out is noted.
nd_rel_script(cli_rel_classify_log_rows classify_log_rows.sh)
# -V: a shard named through many symlinks read once; parameters past 2^53 refused.
nd_rel_script(cli_rel_census_bounds census_bounds.sh)
# nd-plot holds a CSV in under 4x its size (not under ASan, whose shadow memory and redzones
# are most of a sanitized process's RSS).
if(NOT ND_SANITIZE)
  nd_rel_script(cli_rel_plot_memory_bound plot_memory_bound.sh)
endif()
# Names read from files (sweep directories, process groups, tensors) reach the terminal escaped.
nd_rel_script(cli_rel_terminal_escapes terminal_escapes.sh ${CMAKE_CURRENT_SOURCE_DIR}/data/classify)
# Messages: a strategy.txt error is the file's (no "Try --help"); --hold "" refused.
nd_rel_script(cli_rel_messages messages_rel.sh ${CMAKE_CURRENT_SOURCE_DIR}/bad)
# Issue 23: a device whose kernel rates were not measured in training says so beside every
# uncalibrated estimate (text, JSON, the search's assumptions); its own rates clear it.
nd_rel_script(cli_device_caveat device_caveat.sh)
# Issue 23: DeepSpeed's ZeRO-3 over more than one node, which SC21 Table 2 measured 28-65 %
# slower than nd prices, says so beside every uncalibrated estimate (text, JSON, the search).
nd_rel_script(cli_zero3_caveat zero3_caveat.sh)
nd_rel_script(cli_moe_caveat moe_caveat.sh)
# torchtitan's context parallelism, which its own tables measured 8-35 % slower than nd prices.
# SimuMax's strategy and model JSON (-f simumax, --model-config): fields read as worked by hand,
# bad fields refused, the search's choice written back and read again.
nd_rel_script(cli_simumax simumax.sh)
# nd-estimate -v's per-layer table (GEMM, attention, memory-bound, host, device) worked by hand.
nd_rel_script(cli_layer_costs layer_costs.sh ${CMAKE_CURRENT_SOURCE_DIR}/data/layer_costs)
