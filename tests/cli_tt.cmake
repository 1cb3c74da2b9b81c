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

# torchtitan's own Llama 3.1 405B preset (samples/frameworks/real/README.md, count by hand
# there); its float8 converter is dynamic scaling: priced exactly as --set fp8_recipe=current
set(TT_405B ${PROJECT_SOURCE_DIR}/samples/frameworks/real/torchtitan_llama3_405b.toml)
nd_cli_test(cli_tt_real_405b_params 0 "^parameters: 405,853,388,800, " ${EST} -y ${TT_405B} -A H100 -d 128)
nd_cli_test(cli_tt_real_405b_float8_current 0 "^same$" sh -c
            "${EST} -y ${TT_405B} -A H100 -d 128 | grep '^  step' > ${CMAKE_CURRENT_BINARY_DIR}/f8.a && ${EST} -y ${TT_405B} -A H100 -d 128 --set fp8_recipe=current | grep '^  step' > ${CMAKE_CURRENT_BINARY_DIR}/f8.b && ${EST} -y ${TT_405B} -A H100 -d 128 --set fp8_recipe=delayed | grep '^  step' > ${CMAKE_CURRENT_BINARY_DIR}/f8.c && cmp -s ${CMAKE_CURRENT_BINARY_DIR}/f8.a ${CMAKE_CURRENT_BINARY_DIR}/f8.b && ! cmp -s ${CMAKE_CURRENT_BINARY_DIR}/f8.a ${CMAKE_CURRENT_BINARY_DIR}/f8.c && echo same")
