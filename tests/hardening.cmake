# hardening.cmake — nd's promise for unattended runs on files other tools wrote, checked:
#  - the bad-input corpus (bad.cmake, tests/bad/MANIFEST): exit status and message per
#    input and per binary that reads it;
#  - atomic outputs: rename() made to fail (rename_fail.c, an LD_PRELOAD shim) leaves every
#    earlier output file as it was;
#  - libFuzzer targets for every reader (fuzz.cmake; only with -DND_FUZZ=ON and clang).
# scripts/ci-hardening.sh runs them under ASan+UBSan; docs/limits.md lists the bounds.
include(${CMAKE_CURRENT_LIST_DIR}/bad.cmake)

add_library(nd_rename_fail MODULE ${CMAKE_CURRENT_LIST_DIR}/rename_fail.c)
target_link_libraries(nd_rename_fail PRIVATE ${CMAKE_DL_LIBS}) # no nd_flags: no sanitizer runtime
add_test(NAME rename_fail_keeps_outputs
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/rename_fail.sh $<TARGET_FILE:nd_rename_fail>)
set_tests_properties(rename_fail_keeps_outputs PROPERTIES ENVIRONMENT "${ND_BAD_ENV}" TIMEOUT 300)

# --dims values are bounded so the group strides (products of three degrees) fit int64.
add_test(NAME hardening_classify_dims_bound
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli/expect.sh 2 "--dims: DP: '2000000' is not a whole number in \\[1, 1048576\\]"
                 $<TARGET_FILE:nd-classify> x.json --dims DP=2000000)
set_tests_properties(hardening_classify_dims_bound PROPERTIES ENVIRONMENT "${ND_BAD_ENV}")

include(${CMAKE_CURRENT_LIST_DIR}/fuzz.cmake)
