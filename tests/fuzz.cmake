# fuzz.cmake — libFuzzer targets for every reader of a file another tool wrote
# (-DND_FUZZ=ON, clang only; CC=clang-14). Every nd library is then built with
# coverage instrumentation and ASan+UBSan; each target adds libFuzzer's main.
#   cmake --build build-fuzz --target fuzz         # each target for ND_FUZZ_SECONDS
# ND_FUZZ_TARGETS below is the one list of targets: the `fuzz` target runs every one of
# them, and CI (scripts/ci-hardening.sh) runs that target rather than naming them again.
# The targets and their seeds: tests/fuzz/README.md.
if(NOT ND_FUZZ)
  return()
endif()
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "ND_FUZZ=ON needs clang for libFuzzer: configure with CC=clang-14")
endif()

set(ND_FUZZ_SECONDS 60 CACHE STRING "Seconds each fuzz target runs under the 'fuzz' target")
set(ND_FUZZ_JOBS 2 CACHE STRING "Fuzz targets the 'fuzz' target runs at once")
get_filename_component(ND_FUZZ_SRC "${CMAKE_CURRENT_LIST_DIR}/fuzz" ABSOLUTE)
get_filename_component(ND_FUZZ_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

target_compile_options(nd_flags INTERFACE -fsanitize=fuzzer-no-link,address,undefined
                       -fno-sanitize-recover=all -fno-omit-frame-pointer)
target_link_options(nd_flags INTERFACE -fsanitize=address,undefined)

add_library(nd_fuzz_util STATIC ${ND_FUZZ_SRC}/fuzz_util.c)
target_link_libraries(nd_fuzz_util PUBLIC nd_base)

# target -> the library holding its reader
set(ND_FUZZ_TARGETS
  classified:nd_calibrate run:nd_session hf_config:nd_session ratios:nd_session search_config:nd_planner
  devices:nd_session chrome:nd_classify ascend_steps:nd_classify ascend_comm:nd_classify
  kernel_details:nd_classify
  log:nd_classify round:nd_classify csv_table:nd_charts safetensors:nd_session
  kernel_tables:nd_session
  toml:nd_base
  torchtitan:nd_inputs megatron:nd_inputs mindformers:nd_inputs mindspeed:nd_inputs simumax:nd_inputs
  yaml_edit:nd_base)
set(ND_FUZZ_NAMES "")
foreach(pair IN LISTS ND_FUZZ_TARGETS)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 name)
  list(GET pair 1 lib)
  set(sources ${ND_FUZZ_SRC}/fuzz_${name}.c)
  if(lib STREQUAL "nd_classify")
    list(APPEND sources ${ND_FUZZ_SRC}/fuzz_classify_common.c)
  endif()
  if(lib STREQUAL "nd_inputs")
    list(APPEND sources ${ND_FUZZ_SRC}/fuzz_framework_common.c)
  endif()
  add_executable(fuzz_${name} ${sources})
  target_link_libraries(fuzz_${name} PRIVATE nd_fuzz_util ${lib})
  target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  target_compile_definitions(fuzz_${name} PRIVATE ND_SOURCE_DIR="${ND_FUZZ_ROOT}")
  list(APPEND ND_FUZZ_NAMES ${name})

  # Every fixed crash stays fixed: its input is replayed (with the seeds) by CTest.
  add_test(NAME fuzz_${name}_regressions
           COMMAND sh ${ND_FUZZ_SRC}/replay.sh $<TARGET_FILE:fuzz_${name}> ${name}
                   ${CMAKE_BINARY_DIR}/fuzz-seeds)
  set_tests_properties(fuzz_${name}_regressions PROPERTIES TIMEOUT 300
                       FIXTURES_REQUIRED nd_fuzz_seeds)
endforeach()

add_test(NAME fuzz_seeds COMMAND sh ${ND_FUZZ_SRC}/seeds.sh ${CMAKE_BINARY_DIR}/fuzz-seeds)
set_tests_properties(fuzz_seeds PROPERTIES FIXTURES_SETUP nd_fuzz_seeds TIMEOUT 300)

list(TRANSFORM ND_FUZZ_NAMES PREPEND fuzz_ OUTPUT_VARIABLE ND_FUZZ_EXES)
add_custom_target(fuzz
  COMMAND sh ${ND_FUZZ_SRC}/run.sh ${CMAKE_BINARY_DIR} ${ND_FUZZ_SECONDS} ${ND_FUZZ_JOBS}
          ${ND_FUZZ_NAMES}
  DEPENDS ${ND_FUZZ_EXES}
  USES_TERMINAL
  COMMENT "Fuzzing each target for ${ND_FUZZ_SECONDS} s (${ND_FUZZ_JOBS} at a time)")
