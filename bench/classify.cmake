# bench_classify: throughput and peak memory of nd-classify on a >= 1 GB synthetic trace.
add_executable(bench_classify ${CMAKE_CURRENT_LIST_DIR}/bench_classify.c)
target_link_libraries(bench_classify PRIVATE nd_classify)
