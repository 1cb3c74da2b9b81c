# The command line helps: a typo gets the nearest flag, key or name ("did you mean"), a flag
# without its value says so, a shared flag a binary does not use is refused or noted and left
# out of its --help. expect.sh checks the exit status and the one-line message.
set(HINT_EST $<TARGET_FILE:nd-estimate>)
set(HINT_CMP $<TARGET_FILE:nd-compare>)
set(HINT_FIT $<TARGET_FILE:nd-fit>)
set(HINT_RUN ${PROJECT_SOURCE_DIR}/samples/runs/llama3-8b.yaml)
set(HINT_ROUND ${PROJECT_SOURCE_DIR}/samples/rounds/llama3-8b-h100.csv)

function(nd_hint_test name status pattern)
  add_test(NAME ${name} COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/expect.sh ${status} ${pattern} ${ARGN})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 120)
endfunction()

# Flags: two letters swapped or one missing is a typo of the known flag.
nd_hint_test(hint_flag_compare 2 "unknown option '--reall_csv' [(]did you mean '--real[-_]csv'[?][)]"
             ${HINT_CMP} -y ${HINT_RUN} --reall_csv ${HINT_ROUND})
nd_hint_test(hint_flag_search 2 "unknown option '--ranking_cvs' [(]did you mean '--ranking[-_]csv'[?][)]"
             $<TARGET_FILE:nd-search> -y ${HINT_RUN} --ranking_cvs r.csv)
nd_hint_test(hint_flag_plot 2 "unknown option '--budgt' [(]did you mean '--budget'[?][)]"
             $<TARGET_FILE:nd-plot> ranking r.csv --budgt 58GB)
nd_hint_test(hint_flag_classify 2 "unknown option '--dimz' [(]did you mean '--dims'[?][)]"
             $<TARGET_FILE:nd-classify> --dimz DP=2 t.json)
# Nothing near: no guess.
nd_hint_test(hint_flag_none 2 "unknown option '--frobnicate'$" ${HINT_EST} --frobnicate)
nd_hint_test(hint_flag_needs_value 2 "option '--format' needs a value"
             ${HINT_CMP} -y ${HINT_RUN} --real_csv ${HINT_ROUND} --format)
# The underscore spellings --help and the README use, last on the line: the flag needs its value
# (was "unknown option '--real_csv' (did you mean '--real-csv'?)", the table spelling it with '-').
nd_hint_test(hint_flag_underscore_needs_value 2 "^nd-compare: option '--real_csv' needs a value$"
             ${HINT_CMP} -y ${HINT_RUN} --real_csv)
nd_hint_test(hint_flag_underscore_max_mem 2 "^nd-compare: option '--max_mem' needs a value$"
             ${HINT_CMP} -y ${HINT_RUN} --real_csv ${HINT_ROUND} --max_mem)
nd_hint_test(hint_flag_underscore_cache_file 2 "^nd-compare: option '--cache_file' needs a value$"
             ${HINT_CMP} -y ${HINT_RUN} --real_csv ${HINT_ROUND} --cache_file)
# -v takes a level from 0 to 6 (docs/cli.md): a negative one is -v's error, not "unknown option '-1'".
nd_hint_test(hint_verbosity_negative 2 "^nd-compare: -v: '-1' is not a level from 0 to 6$"
             ${HINT_CMP} -y ${HINT_RUN} --real_csv ${HINT_ROUND} -v -1)
# --help says what the program does: nd-compare writes nothing without -o (docs/cli.md's -o row,
# and its note "no -o DIR: ... are not written"), nd-classify's --csv merges columns by name
# (docs/classify.md, "Appending"), and --optimizer lists adam, which the run key accepts and its
# error lists (search/inputs/train_keys.c).
nd_hint_test(hint_help_compare_outputs 0 "^DIR. without -o it writes nothing but what --report names[.]$"
             ${HINT_CMP} --help)
nd_hint_test(hint_help_classify_csv 0 "append the row to a round file [(]created if absent. columns are$"
             $<TARGET_FILE:nd-classify> --help)
nd_hint_test(hint_help_optimizer 0 "--optimizer O +adamw [(]or adam[)], sgd or muon$" ${HINT_EST} --help)
# An output path that is a file where a directory goes (-o FILE, or a file on the way) is the
# user's path given wrong, exit 2, as --memory-csv DIR is; it was exit 1, as a failed write.
nd_hint_test(hint_output_dir_is_file 2 "^nd-estimate: [^ ]*README[.]md: exists and is not a directory$"
             ${HINT_EST} -y ${HINT_RUN} -o ${PROJECT_SOURCE_DIR}/README.md)
nd_hint_test(hint_output_dir_under_file 2 "README[.]md/x: cannot create directory: Not a directory$"
             $<TARGET_FILE:nd-plot> memory ${PROJECT_SOURCE_DIR}/tests/data/nd-plot/memory.csv --script-only
             -o ${PROJECT_SOURCE_DIR}/README.md/x)
# Keys and names inside values and files.
nd_hint_test(hint_set_key 2 "unknown setting 'seq_lenn' [(]did you mean 'seq_len'[?] known: "
             ${HINT_EST} -y ${HINT_RUN} --set seq_lenn=4096)
nd_hint_test(hint_strategy_key 2 "strategy key 'MPP' is unknown [(]did you mean 'MP'[?] known: "
             ${HINT_EST} -y ${HINT_RUN} --strategy "DP=8 MPP=4")
nd_hint_test(hint_device_name 2 "-A H10: unknown device [(]did you mean 'H100'[?] known: "
             ${HINT_EST} -y ${HINT_RUN} -A H10)
nd_hint_test(hint_plot_kind 2 "unknown plot kind 'rankng' [(]did you mean 'ranking'[?] known: "
             $<TARGET_FILE:nd-plot> rankng r.csv)
# (A typo in a round's header: tests/bad/round_typo_column.csv in tests/bad/MANIFEST.)

# A shared flag a binary does not use: refused, or a note while the run goes on; and not in
# its --help.
nd_hint_test(hint_fit_refuses_ratios 2 "^nd-fit: -c does not apply: nd-fit fits the raw estimates"
             ${HINT_FIT} -y ${HINT_RUN} --real_csv ${HINT_ROUND} -c ratios.json)
add_test(NAME hint_fit_help_without_ratios COMMAND sh -c
         "\"$0\" --help | grep -Eq -- '^  -c, --cache_file' && exit 1; \"$0\" --help | grep -Eq -- '--real_csv' && echo ok"
         ${HINT_FIT})
set_tests_properties(hint_fit_help_without_ratios PROPERTIES PASS_REGULAR_EXPRESSION "(^|\n)ok")
add_test(NAME hint_compare_notes_devices COMMAND sh -c
         "\"$0\" -y \"$1\" --real_csv \"$2\" -d 64 -q -o \"$3\" --no-plots >/dev/null 2>\"$3.err\" && cat \"$3.err\""
         ${HINT_CMP} ${HINT_RUN} ${HINT_ROUND} ${CMAKE_CURRENT_BINARY_DIR}/hint_compare_notes)
set_tests_properties(hint_compare_notes_devices PROPERTIES ENVIRONMENT "${ND_TEST_ENV}"
  PASS_REGULAR_EXPRESSION "^nd-compare: note: -d is not used: each row's device count follows from its degrees")

# an unused -d is not checked either: -d 0 is noted, not refused (the note alone, exit 0)
add_test(NAME hint_compare_unused_devices_unchecked COMMAND sh -c
         "\"$0\" -y \"$1\" --real_csv \"$2\" -d 0 -b x -q >/dev/null 2>\"$3.err\" && cat \"$3.err\""
         ${HINT_CMP} ${HINT_RUN} ${HINT_ROUND} ${CMAKE_CURRENT_BINARY_DIR}/hint_compare_unused)
set_tests_properties(hint_compare_unused_devices_unchecked PROPERTIES ENVIRONMENT "${ND_TEST_ENV}"
  PASS_REGULAR_EXPRESSION "^nd-compare: note: -d is not used: [^\n]*\nnd-compare: note: -b is not used: [^\n]*\n$")

# Progress: with the threshold at 0 ms (ND_PROGRESS_AFTER_MS) the search's pricing prints
# its lines with the time left and a closing line; -q prints none.
add_test(NAME hint_progress_search COMMAND sh -c
         "ND_PROGRESS_AFTER_MS=0 \"$0\" -y \"$1\" -d 64 -b 512 -t 1 2>&1 >/dev/null | \
          grep -E '^nd-search: pricing [0-9]+ % \\([0-9]+ of [0-9]+ MP x PP x CP layouts\\), [0-9.]+ s, about [0-9]+ s left$' >/dev/null && \
          ND_PROGRESS_AFTER_MS=0 \"$0\" -y \"$1\" -d 64 -b 512 -t 1 2>&1 >/dev/null | grep -q '^nd-search: pricing done in' && \
          ! (ND_PROGRESS_AFTER_MS=0 \"$0\" -y \"$1\" -d 64 -b 512 -t 1 -q 2>&1 >/dev/null | grep -q 'nd-search: pricing') && echo ok"
         $<TARGET_FILE:nd-search> ${HINT_RUN})
set_tests_properties(hint_progress_search PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" PASS_REGULAR_EXPRESSION "(^|\n)ok")
# nd-compare prices the round with progress too (a round of 100,000 rows takes seconds).
add_test(NAME hint_progress_compare COMMAND sh -c
         "ND_PROGRESS_AFTER_MS=0 \"$0\" -y \"$1\" --real_csv \"$2\" -o \"$3\" --no-plots 2>&1 >/dev/null | \
          grep -q '^nd-compare: pricing the round done in' && echo ok"
         ${HINT_CMP} ${HINT_RUN} ${HINT_ROUND} ${CMAKE_CURRENT_BINARY_DIR}/hint_progress_compare)
set_tests_properties(hint_progress_compare PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" PASS_REGULAR_EXPRESSION "(^|\n)ok")
