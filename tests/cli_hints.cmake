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
