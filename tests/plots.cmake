# The plots of nd-fit and nd-classify, end to end. Each renders an image (skipped without
# gnuplot) and checks the plot's data against numbers known independently of the plot code.
set(PLOTS_OUT ${CMAKE_CURRENT_BINARY_DIR}/plots)
file(MAKE_DIRECTORY ${PLOTS_OUT}/plots_classify_ranks ${PLOTS_OUT}/plots_fit ${PLOTS_OUT}/plots_reports_reproducible)
nd_add_unit_test(test_html SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_html.c LIBS nd_html)
file(MAKE_DIRECTORY ${PLOTS_OUT})

function(nd_plots_test name script)
  add_test(NAME ${name} COMMAND sh -c "command -v gnuplot >/dev/null 2>&1 || exit 77; set -e; ${script}"
           sh ${PROJECT_SOURCE_DIR} ${PLOTS_OUT}/${name} ${ARGN})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 120 SKIP_RETURN_CODE 77
                       PASS_REGULAR_EXPRESSION "(^|\n)ok")
endfunction()

# nd-classify -o: one bar per rank. The fixture's numbers are ND's own test's (reference
# section 3.3, tests/test_classify.c): comp 0.34, dp 0.086, op 0.05, mp 0.01, sp 0.004,
# ep 0.02, cp 0.008, pp 0.01, unclassified 0.009, idle 1 - 0.34 - 0.197 = 0.463 ms.
nd_plots_test(plots_classify_ranks
  "rm -rf \"$2/classify\"; \"$3\" \"$1/tests/data/classify/rank2.pt.trace.json\" -o \"$2/classify\" >/dev/null; \
   test -s \"$2/classify/classify_ranks.png\"; test ! -e \"$2/classify/classify_kernels.png\"; \
   awk 'BEGIN { split(\"0.34 0.086 0.05 0.01 0.004 0.02 0.008 0.01 0.009 0.463\", want, \" \") } \
        /^\"2\"/ { for (i = 1; i <= 10; i++) if ((\$(i + 1) - want[i]) ^ 2 > 1e-18) { print \"col \" i \": \" \$(i + 1); exit 1 } \
                   print \"ok\"; found = 1 } END { if (!found) exit 1 }' \"$2/classify/classify_ranks.dat\""
  $<TARGET_FILE:nd-classify>)

# nd-fit -o: the ratios plot holds the very values of the ratios file (written by another
# path, fit_out.c); EP_COMM and CP_COMM are held at 1 without an interval (the round has no
# EP or CP column), and the leave-one-out plot's measured steps are the round's `time`
# column, every row once.
nd_plots_test(plots_fit
  "rm -rf \"$2/fit\"; \"$3\" -y \"$1/samples/runs/dlperf-gpt-h1536-l16.yaml\" \
     --real_csv \"$1/samples/rounds/dlperf-gpt-h1536-l16.csv\" --hold auto --write_ratios \"$2/fit_ratios.json\" -o \"$2/fit\" -q >/dev/null; \
   test -s \"$2/fit/dlperf-gpt-h1536-l16_ratios.png\"; test -s \"$2/fit/dlperf-gpt-h1536-l16_loo.png\"; \
   grep -q '^\"EP_COMM\" 1 nan nan 0 \"held at 1' \"$2/fit/dlperf-gpt-h1536-l16_ratios.dat\"; \
   grep -q '^\"CP_COMM\" 1 nan nan 0 \"held at 1' \"$2/fit/dlperf-gpt-h1536-l16_ratios.dat\"; \
   for k in COMPUTE DP_REDUCE MP_COMM; do \
     want=$(sed -n \"s/.*\\\"$k\\\": *\\([-0-9.e+]*\\).*/\\1/p\" \"$2/fit_ratios.json\" | head -1); \
     got=$(awk -v k=\"\\\"$k\\\"\" '$1 == k { print $2 }' \"$2/fit/dlperf-gpt-h1536-l16_ratios.dat\"); \
     awk -v a=\"$want\" -v b=\"$got\" 'BEGIN { exit !((a - b) ^ 2 < 1e-20 && a != \"\") }'; done; \
   cut -d, -f6 \"$1/samples/rounds/dlperf-gpt-h1536-l16.csv\" | tail -n +2 | sort -n > \"$2/fit_time\"; \
   grep -v '^#' \"$2/fit/dlperf-gpt-h1536-l16_loo.dat\" | awk -F'\" ' '{ split($2, f, \" \"); print f[1] }' | sort -n > \"$2/fit_loo\"; \
   cmp -s \"$2/fit_time\" \"$2/fit_loo\"; echo ok"
  $<TARGET_FILE:nd-fit>)

# The one-page HTML reports in a real browser (headless Chromium): the demo writes every
# binary's report, each is loaded and must render with its sections, its plots and no error;
# broken copies must be caught (tests/browser/check_reports.sh). Skipped without chromium,
# unless ND_REQUIRE_BROWSER=1, which .ci/run sets.
add_test(NAME browser_reports COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/browser/check_reports.sh
         ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/browser)
set_tests_properties(browser_reports PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900
                     PASS_REGULAR_EXPRESSION "all [0-9]+ reports render")

# Every command of the README's "A first session" runs as written on the bundled samples.
add_test(NAME readme_first_session COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/readme_first_session.sh
         ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/readme_session)
set_tests_properties(readme_first_session PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "(^|\n)ok: [0-9]+ commands")

# A report is the same bytes for the same inputs (no date, no duration): two runs compared.
nd_plots_test(plots_reports_reproducible
  "for i in 1 2; do \
     \"$3\" -y \"$1/samples/runs/llama3-8b.yaml\" -d 64 -b 512 -ar -t 5 --report \"$2/search-$i.html\" >/dev/null 2>&1; \
     \"$4\" -y \"$1/samples/runs/llama3-8b.yaml\" --real_csv \"$1/samples/rounds/llama3-8b-h100.csv\" \
       -o \"$2/compare-$i\" --report \"$2/compare-$i.html\" >/dev/null 2>&1; done; \
   test -s \"$2/search-1.html\"; test -s \"$2/compare-1.html\"; \
   cmp \"$2/search-1.html\" \"$2/search-2.html\"; cmp \"$2/compare-1.html\" \"$2/compare-2.html\"; echo ok"
  $<TARGET_FILE:nd-search> $<TARGET_FILE:nd-compare>)
