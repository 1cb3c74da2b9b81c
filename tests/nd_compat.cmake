# nd_compat.cmake — ND's command lines (tests/nd_compat/LINES): every flag of ND's run_nd
# --help and each framework sample of samples/frameworks/, one CTest test per line,
# each checking the outcome (status, what is printed and written), not only the exit.
get_filename_component(ND_COMPAT_DIR "${CMAKE_CURRENT_LIST_DIR}/nd_compat" ABSOLUTE)
include(${CMAKE_CURRENT_LIST_DIR}/manifest.cmake)
nd_manifest_lines(${ND_COMPAT_DIR}/LINES ND_COMPAT_LINES)
foreach(line IN LISTS ND_COMPAT_LINES)
  nd_manifest_unescape(line)
  if(NOT line MATCHES "^([a-z0-9_]+) +@@ +([0-9]+) +@@ +(.*[^ ]) +@@ +(.+)$")
    message(FATAL_ERROR "tests/nd_compat/LINES: cannot read the line '${line}'")
  endif()
  add_test(NAME ndc_${CMAKE_MATCH_1}
           COMMAND sh ${ND_COMPAT_DIR}/run_line.sh ${CMAKE_MATCH_1} ${CMAKE_MATCH_2} "${CMAKE_MATCH_3}" "${CMAKE_MATCH_4}")
  set_tests_properties(ndc_${CMAKE_MATCH_1} PROPERTIES TIMEOUT 300 LABELS nd_compat ENVIRONMENT
    "ASAN_OPTIONS=abort_on_error=1:detect_leaks=1;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1;ND_BIN=$<TARGET_FILE_DIR:nd-estimate>;ND_SAMPLES=${PROJECT_SOURCE_DIR}/samples;ND_COMPAT_DIR=${ND_COMPAT_DIR};ND_COMPAT_OUT=${CMAKE_CURRENT_BINARY_DIR}/nd-compat-out")
endforeach()
