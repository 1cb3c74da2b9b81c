add_executable(bench_search ${CMAKE_CURRENT_LIST_DIR}/bench_search.c)
target_link_libraries(bench_search PRIVATE nd_planner)
target_compile_definitions(bench_search PRIVATE ND_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
