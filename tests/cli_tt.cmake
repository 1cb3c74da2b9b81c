# cli_tt.cmake — TOML and JSON readers held to their formats' grammar, torchtitan's config read
# and written back as torchtitan reads it, and every framework write-back read back before it is
# committed (issues 25 and 27).
nd_add_unit_test(test_toml SOURCES test_toml.c LIBS nd_base)

# torchtitan: the older layout, inline and dotted [parallelism], module comments, compile.components
add_test(NAME cli_tt_torchtitan
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/tt_torchtitan.sh $<TARGET_FILE:nd-search>
                 $<TARGET_FILE:nd-estimate> ${PROJECT_SOURCE_DIR}/samples ${CMAKE_CURRENT_SOURCE_DIR}/data/torchtitan)
set_tests_properties(cli_tt_torchtitan PROPERTIES ENVIRONMENT "${ND_TEST_ENV}" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "torchtitan ok")

# Framework write-back read back before it is committed (nd_config_write)
nd_add_unit_test(test_readback SOURCES test_readback.c LIBS nd_inputs)
