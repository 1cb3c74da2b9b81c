# nd_classify: profiler traces (Chrome, Ascend) to classified CSV rows; nd-classify.
add_library(nd_classify STATIC
  ${CMAKE_CURRENT_LIST_DIR}/classify_names.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_groups.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_order.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_host.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_device.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_trace.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_steps.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_chrome.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_samples.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_ascend.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_comm.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_run.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_collect.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_output.c
  ${CMAKE_CURRENT_LIST_DIR}/classify_report.c)
target_include_directories(nd_classify PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(nd_classify PUBLIC nd_base PkgConfig::YAJL ZLIB::ZLIB csv::csv)

add_executable(nd-classify ${CMAKE_CURRENT_LIST_DIR}/nd-classify.c)
target_link_libraries(nd-classify PRIVATE nd_classify)
install(TARGETS nd-classify RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
