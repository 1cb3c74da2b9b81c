# nd_calib: classified CSV, compare, fit.
