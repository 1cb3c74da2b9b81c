nd_add_unit_test(test_fit SOURCES test_fit.c LIBS nd_calib)
nd_add_unit_test(test_classified SOURCES test_classified.c LIBS nd_calib)
nd_add_unit_test(test_compare SOURCES test_compare.c LIBS nd_calib)
