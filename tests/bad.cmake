# bad.cmake — the bad-input corpus (tests/bad/MANIFEST): one CTest test per input and per
# binary that reads it, each checking the exit status and the one-line message. Under
# -DND_SANITIZE=ON the same tests run under ASan+UBSan (scripts/ci-hardening.sh).
get_filename_component(ND_BAD_DIR "${CMAKE_CURRENT_LIST_DIR}/bad" ABSOLUTE)
get_filename_component(ND_BAD_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(ND_BAD_GEN ${CMAKE_CURRENT_BINARY_DIR}/bad-gen)
set(ND_BAD_OUT ${CMAKE_CURRENT_BINARY_DIR}/bad-out)

# The inputs too large for git, written once before the tests that read them.
add_test(NAME bad_generate COMMAND sh ${ND_BAD_DIR}/generate.sh ${ND_BAD_GEN})
set_tests_properties(bad_generate PROPERTIES FIXTURES_SETUP nd_bad_gen TIMEOUT 120)

set(ND_BAD_READERS_round compare-round fit-round)
set(ND_BAD_READERS_run estimate-run search-run compare-run fit-run)
set(ND_BAD_READERS_ratios estimate-ratios search-ratios compare-ratios)
set(ND_BAD_READERS_devices estimate-devices search-devices compare-devices fit-devices)
set(ND_BAD_READERS_search search-config)
set(ND_BAD_READERS_trace classify-trace)
set(ND_BAD_READERS_ascend classify-ascend)
set(ND_BAD_READERS_log classify-log)
set(ND_BAD_READERS_sweep classify-sweep)
set(ND_BAD_READERS_plot plot-parity plot-memory)

set(ND_BAD_ENV
  "ASAN_OPTIONS=abort_on_error=1:detect_leaks=1"
  "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
  "ND_SOURCE_DIR=${ND_BAD_ROOT}"
  "ND_BAD_GEN=${ND_BAD_GEN}"
  "ND_BAD_OUT=${ND_BAD_OUT}"
  "ND_ESTIMATE=$<TARGET_FILE:nd-estimate>"
  "ND_SEARCH=$<TARGET_FILE:nd-search>"
  "ND_COMPARE=$<TARGET_FILE:nd-compare>"
  "ND_FIT=$<TARGET_FILE:nd-fit>"
  "ND_CLASSIFY=$<TARGET_FILE:nd-classify>"
  "ND_PLOT=$<TARGET_FILE:nd-plot>")

include(${CMAKE_CURRENT_LIST_DIR}/manifest.cmake)
nd_manifest_lines(${ND_BAD_DIR}/MANIFEST ND_BAD_LINES)
set(ND_BAD_COUNT 0)
foreach(line IN LISTS ND_BAD_LINES)
  nd_manifest_unescape(line)
  if(NOT line MATCHES "^([^|]*[^ |]) *\\| *([a-z-]+) *\\| *([0-9]+) *\\| *(.+)$")
    message(FATAL_ERROR "tests/bad/MANIFEST: cannot read the line '${line}'")
  endif()
  set(file "${CMAKE_MATCH_1}")
  set(readers "${CMAKE_MATCH_2}")
  set(status "${CMAKE_MATCH_3}")
  set(regex "${CMAKE_MATCH_4}")
  if(DEFINED ND_BAD_READERS_${readers})
    set(readers ${ND_BAD_READERS_${readers}})
  endif()
  string(REGEX REPLACE "^gen:" "gen_" stem "${file}")
  string(REGEX REPLACE "[^A-Za-z0-9_]" "_" stem "${stem}")
  foreach(reader IN LISTS readers)
    set(name bad_${stem}_${reader})
    add_test(NAME ${name} COMMAND sh ${ND_BAD_DIR}/run_bad.sh ${reader} ${file} ${status} "${regex}")
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ND_BAD_ENV}" TIMEOUT 120 LABELS bad)
    if(file MATCHES "^gen:")
      set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED nd_bad_gen)
    endif()
    math(EXPR ND_BAD_COUNT "${ND_BAD_COUNT} + 1")
  endforeach()
endforeach()
message(STATUS "tests/bad: ${ND_BAD_COUNT} bad-input tests")
