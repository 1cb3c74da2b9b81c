# test_plot: golden .gp/.dat files (tests/data/plot, written by hand), image
# checks, and the error paths (no gnuplot, bad directory, empty input).
nd_add_unit_test(test_plot SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_plot.c LIBS nd_charts)
