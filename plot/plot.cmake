# nd_plot: tables of labelled numbers drawn by gnuplot through a pipe, and
# nd-plot's reading of nd's CSV files (csv_table, plot_cmd*). Knows no model:
# it depends on nd_base (errors, atomic outputs, number text) and libcsv only.
add_library(nd_plot STATIC
  ${CMAKE_CURRENT_LIST_DIR}/text.c
  ${CMAKE_CURRENT_LIST_DIR}/gnuplot.c
  ${CMAKE_CURRENT_LIST_DIR}/parity.c
  ${CMAKE_CURRENT_LIST_DIR}/bars.c
  ${CMAKE_CURRENT_LIST_DIR}/recompute.c
  ${CMAKE_CURRENT_LIST_DIR}/csv_table.c
  ${CMAKE_CURRENT_LIST_DIR}/plot_cmd.c
  ${CMAKE_CURRENT_LIST_DIR}/plot_cmd_compare.c
  ${CMAKE_CURRENT_LIST_DIR}/plot_cmd_search.c)
target_link_libraries(nd_plot PUBLIC nd_base PRIVATE csv::csv)

# nd-plot: draws a plot again from the CSV another binary wrote.
add_executable(nd-plot ${CMAKE_CURRENT_LIST_DIR}/nd-plot.c)
target_link_libraries(nd-plot PRIVATE nd_plot)
install(TARGETS nd-plot RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
