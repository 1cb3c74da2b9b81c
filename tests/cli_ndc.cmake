# cli_ndc.cmake — issue 25's ND outputs and files, checked on the binaries' own flags (the ND
# command lines themselves are in tests/nd_compat/LINES): the flags are documented in --help,
# and ND's ratios file is refused the same way by every binary that reads -c.
set(NDC_SEARCH $<TARGET_FILE:nd-search>)
set(NDC_COMPARE $<TARGET_FILE:nd-compare>)
set(NDC_FIT $<TARGET_FILE:nd-fit>)
set(NDC_ND_RATIOS ${CMAKE_CURRENT_SOURCE_DIR}/nd_compat/configs/nd_ratios.json)

nd_cli_test(ndc_help_fit_mode_compare 0 "--fit_mode M +that fit's mode: parts, total or sums" ${NDC_COMPARE} --help)
nd_cli_test(ndc_help_fit_mode_search 0 "--fit_mode M +that fit's mode: parts, total or sums" ${NDC_SEARCH} --help)
nd_cli_test(ndc_help_fit_mode_fit 0 "--mode, --fit_mode M" ${NDC_FIT} --help)
nd_cli_test(ndc_help_rp_without_o 0 "-rp, --recompute_potentials +with -ar: .*else output/" ${NDC_SEARCH} --help)
nd_cli_test(ndc_search_fit_mode_alone 2 "--fit_mode is the mode of the fit --write_ratios makes" ${NDC_SEARCH}
            -y ${LLAMA} --fit_mode sums)
# ND's file (configs/nd_ratios.json, whose round real_all.csv is nowhere near): refused, with
# the refit into a new file beside it, by nd-search and nd-compare alike
nd_cli_test(ndc_search_nd_ratios 2 "--write_ratios .*nd_ratios\\.nd\\.json .*is not found: give its path"
            ${NDC_SEARCH} -y ${LLAMA} -d 64 -b 512 -c ${NDC_ND_RATIOS})
nd_cli_test(ndc_compare_nd_ratios 2 "--write_ratios .*nd_ratios\\.nd\\.json .*is not found: give its path"
            ${NDC_COMPARE} -y ${LLAMA} --real_csv ${SAMPLES}/rounds/llama3-8b-h100.csv -c ${NDC_ND_RATIOS})
