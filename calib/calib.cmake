# nd_calib: classified CSV, compare, fit.
add_library(nd_calib STATIC
  ${CMAKE_CURRENT_LIST_DIR}/classified.c
  ${CMAKE_CURRENT_LIST_DIR}/metrics.c
  ${CMAKE_CURRENT_LIST_DIR}/compare.c
  ${CMAKE_CURRENT_LIST_DIR}/compare_out.c
  ${CMAKE_CURRENT_LIST_DIR}/compare_plots.c
  ${CMAKE_CURRENT_LIST_DIR}/compare_cmd.c
  ${CMAKE_CURRENT_LIST_DIR}/lsq.c
  ${CMAKE_CURRENT_LIST_DIR}/fit.c
  ${CMAKE_CURRENT_LIST_DIR}/fit_common.c
  ${CMAKE_CURRENT_LIST_DIR}/fit_parts.c
  ${CMAKE_CURRENT_LIST_DIR}/fit_total.c
  ${CMAKE_CURRENT_LIST_DIR}/fit_sums.c
  ${CMAKE_CURRENT_LIST_DIR}/fit_out.c
  ${CMAKE_CURRENT_LIST_DIR}/fit_cmd.c
  ${CMAKE_CURRENT_LIST_DIR}/search_plots.c
  ${CMAKE_CURRENT_LIST_DIR}/search_potentials.c
  ${CMAKE_CURRENT_LIST_DIR}/search_cmd.c
)
target_link_libraries(nd_calib PUBLIC nd_core nd_plot PkgConfig::CJSON GSL::gsl csv::csv)

add_executable(nd-compare ${CMAKE_CURRENT_LIST_DIR}/nd-compare.c)
target_link_libraries(nd-compare PRIVATE nd_calib)
install(TARGETS nd-compare RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

add_executable(nd-fit ${CMAKE_CURRENT_LIST_DIR}/nd-fit.c)
target_link_libraries(nd-fit PRIVATE nd_calib)
install(TARGETS nd-fit RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
