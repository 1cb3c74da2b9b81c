# nd_plot: tables of labelled numbers drawn by gnuplot through a pipe. Knows no
# model: it depends on nd_base only (errors, atomic outputs, number text).
add_library(nd_plot STATIC
  ${CMAKE_CURRENT_LIST_DIR}/text.c
  ${CMAKE_CURRENT_LIST_DIR}/gnuplot.c
  ${CMAKE_CURRENT_LIST_DIR}/parity.c
  ${CMAKE_CURRENT_LIST_DIR}/bars.c
  ${CMAKE_CURRENT_LIST_DIR}/recompute.c)
target_link_libraries(nd_plot PUBLIC nd_base)
