# nd-classify: unit tests (cmocka), the real traces (skipped when ../shared/traces is
# absent) and command-line tests (exit status and message).
nd_add_unit_test(test_classify SOURCES test_classify.c LIBS nd_classify m)
nd_add_unit_test(test_classify_traces SOURCES test_classify_traces.c LIBS nd_classify m)
target_compile_definitions(test_classify PRIVATE ND_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

set(ND_CLASSIFY_EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/cli/classify_expect.sh)
set(ND_CLASSIFY_BAD ${CMAKE_CURRENT_SOURCE_DIR}/bad/classify)
set(ND_CLASSIFY_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data/classify)
set(ND_CLASSIFY_TRACES ${PROJECT_SOURCE_DIR}/tests/data/shared/traces)
set(ND_CLASSIFY_OUT ${CMAKE_CURRENT_BINARY_DIR}/classify_out)
file(MAKE_DIRECTORY ${ND_CLASSIFY_OUT})

# nd_classify_cli(NAME STATUS REGEX ARGS...): nd-classify ARGS exits STATUS, output matches.
function(nd_classify_cli name status regex)
  add_test(NAME ${name} COMMAND sh ${ND_CLASSIFY_EXPECT} ${status} ${regex}
           $<TARGET_FILE:nd-classify> ${ARGN})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" SKIP_RETURN_CODE 77)
endfunction()

# nd_classify_sh(NAME STATUS REGEX SCRIPT): a shell script ($ND is nd-classify, $OUT a
# scratch directory) exits STATUS with matching output.
function(nd_classify_sh name status regex script)
  add_test(NAME ${name} COMMAND sh ${ND_CLASSIFY_EXPECT} ${status} ${regex} sh -c "${script}")
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT
    "${ND_TEST_ENV};ND=$<TARGET_FILE:nd-classify>;OUT=${ND_CLASSIFY_OUT}")
endfunction()

add_test(NAME classify_cli_version COMMAND nd-classify --version)
set_tests_properties(classify_cli_version PROPERTIES PASS_REGULAR_EXPRESSION
                     "^nd-classify ${PROJECT_VERSION}")
nd_classify_cli(classify_cli_help 0 "Exit status: 0 done" --help)
nd_classify_cli(classify_cli_no_input 2 "nd-classify: no trace or directory given" --dims DP=2)
nd_classify_cli(classify_cli_csv_needs_dims 2 "--dims is required to write an ND CSV"
                ${ND_CLASSIFY_DATA}/rank2.pt.trace.json --csv ${ND_CLASSIFY_OUT}/x.csv)
nd_classify_cli(classify_cli_sp_refused 2 "SP is refused" x.json --dims DP=2,SP=1)
nd_classify_cli(classify_cli_bad_view 2 "--view: 'gpu' is not auto" x.json --view gpu)
nd_classify_cli(classify_cli_ascend_needs_dims 2 "--dims is required to classify an Ascend run"
                ${ND_CLASSIFY_DATA}/ascend_worked)

# Bad inputs: exit 2, one line naming the file and the byte or line.
nd_classify_cli(classify_bad_empty 2 "nd-classify: .*empty.json: empty file"
                ${ND_CLASSIFY_BAD}/empty.json)
nd_classify_cli(classify_bad_not_json 2 "not_json.json: byte 1: not valid JSON"
                ${ND_CLASSIFY_BAD}/not_json.json)
nd_classify_cli(classify_bad_truncated 2 "truncated.json: byte [0-9]+: .*truncated"
                ${ND_CLASSIFY_BAD}/truncated.json)
nd_classify_cli(classify_bad_ts_object 2 "ts_object.json: byte [0-9]+: event #1: 'ts' is an object"
                ${ND_CLASSIFY_BAD}/ts_object.json)
nd_classify_cli(classify_bad_shape 2 "'traceEvents' is an object, expected an array"
                ${ND_CLASSIFY_BAD}/trace_events_object.json)
nd_classify_cli(classify_bad_no_step_trace 2 "no_step_trace: a directory without step_trace_time.csv"
                ${ND_CLASSIFY_BAD}/no_step_trace --dims DP=8)
nd_classify_cli(classify_bad_columns 2 "step_trace_time.csv:1: missing column\\(s\\) Communication, Stage, Bubble"
                ${ND_CLASSIFY_BAD}/missing_columns --dims DP=8)
nd_classify_cli(classify_bad_communication 2 "communication.json: step1/collective/hcom_allGather__800_0_1@1: "
                ${ND_CLASSIFY_BAD}/bad_communication --dims DP=8)

# ND's worked tests through the binary (reference §3.3, §3.4): the printed digits.
nd_classify_sh(classify_cli_worked_chrome 0
  "^DP,MP,time,comp,dp_wait,mp_wait,ep_wait,cp_wait,pp_wait,op_wait,sp_wait,idle,unclassified,optimizer 2,1,1.000,0.340,0.086,0.010,0.020,0.008,0.010,0.050,0.004,0.463,0.009,0.050$"
  "rm -f $OUT/worked.csv && $ND ${ND_CLASSIFY_DATA}/rank2.pt.trace.json --dims DP=2,TP=1 --csv $OUT/worked.csv >/dev/null && tr '\\n' ' ' < $OUT/worked.csv | sed 's/ $//'")
nd_classify_sh(classify_cli_worked_ascend 0
  "^DP,time,comp,dp_wait,mp_wait,ep_wait,cp_wait,pp_wait,op_wait,sp_wait 8,1000.000,200.000,0.000,0.000,40.000,0.000,0.000,40.000,0.000$"
  "rm -f $OUT/ascend.csv && $ND ${ND_CLASSIFY_DATA}/ascend_worked --dims DP=8 --nd-columns --csv $OUT/ascend.csv >/dev/null && tr '\\n' ' ' < $OUT/ascend.csv | sed 's/ $//'")
# Printed with enough digits (issue 17, item 12): Stage 9e14 us is 900000000000.000 ms
# (not a 63-digit number), Computing 0.4 us is 0.0004 ms and Communication(Not
# Overlapped) 0.0123 us is 0.0000123 ms (not 0.000); idle = 9e11 - 0.0004 - 0.0000123 ms,
# 899999999999.9995877, is 900000000000.000 at 3 decimals. By hand from the file.
nd_classify_sh(classify_cli_digits 0
  "^DP,time,comp,dp_wait,mp_wait,ep_wait,cp_wait,pp_wait,op_wait,sp_wait,idle,unclassified,optimizer 1,900000000000.000,0.0004,0.000,0.000,0.000,0.000,0.000,0.000,0.000,900000000000.000,0.0000123,0.000$"
  "rm -f $OUT/digits.csv && $ND ${ND_CLASSIFY_DATA}/ascend_small_values --dims DP=1 --csv $OUT/digits.csv >/dev/null && tr '\\n' ' ' < $OUT/digits.csv | sed 's/ $//'")
# Another round's file, or a CSV that is no round at all, is refused and left as it was.
nd_classify_sh(classify_cli_not_a_round 2
  "not_round.csv:1: not a round file: its header has no 'time' column"
  "printf 'a,b\\n1,2\\n' > $OUT/not_round.csv && $ND ${ND_CLASSIFY_DATA}/rank2.pt.trace.json --dims DP=2 --csv $OUT/not_round.csv")
nd_classify_sh(classify_cli_unterminated_quote 2
  "quote.csv:3: a quoted field is never closed"
  "printf 'DP,time\\n2,1.0\\n\\0422,1.0\\n' > $OUT/quote.csv && $ND ${ND_CLASSIFY_DATA}/rank2.pt.trace.json --dims DP=2 --csv $OUT/quote.csv")
# Concurrent appends to one round keep every row (flock).
add_test(NAME classify_cli_concurrent_append
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/classify_concurrent_append.sh
                 $<TARGET_FILE:nd-classify> ${ND_CLASSIFY_DATA}/rank2.pt.trace.json)
set_tests_properties(classify_cli_concurrent_append PROPERTIES ENVIRONMENT "${ND_TEST_ENV}"
                     PASS_REGULAR_EXPRESSION "^ok")

# The real traces: the DDP job's waits are in dp_wait (device view).
nd_classify_sh(classify_cli_ddp 0 "^DP,time.* 2,[0-9.]+,[0-9.]+,[1-9][0-9]*\\.[0-9]{3},0\\.000,"
  "rm -f $OUT/ddp.csv && $ND ${ND_CLASSIFY_TRACES}/pytorch_hta/nccl_parser_config__nccl_data.json.gz --dims DP=2 --csv $OUT/ddp.csv >/dev/null && tr '\\n' ' ' < $OUT/ddp.csv")
nd_classify_cli(classify_cli_sampled_pair 0 "Statistics over 4 rank-steps of 2 rank"
  ${ND_CLASSIFY_TRACES}/pytorch_hta/trace_filter__sampled_rank-0.json.gz
  ${ND_CLASSIFY_TRACES}/pytorch_hta/trace_filter__sampled_rank-1.json.gz --dims DP=128)
nd_classify_cli(classify_cli_no_distributed_info 0 "\"rank_steps\": 1,"
  ${ND_CLASSIFY_TRACES}/pytorch_hta/distributed_info_unavailable__distributed_info_not_found.json.gz --json)
