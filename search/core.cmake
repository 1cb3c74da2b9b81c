add_library(nd_core STATIC
  ${CMAKE_CURRENT_LIST_DIR}/yaml_doc.c
  ${CMAKE_CURRENT_LIST_DIR}/model.c
  ${CMAKE_CURRENT_LIST_DIR}/model_hf.c
  ${CMAKE_CURRENT_LIST_DIR}/device.c
  ${CMAKE_CURRENT_LIST_DIR}/strategy.c
  ${CMAKE_CURRENT_LIST_DIR}/run.c
  ${CMAKE_CURRENT_LIST_DIR}/parts.c
  ${CMAKE_CURRENT_LIST_DIR}/kernels.c
  ${CMAKE_CURRENT_LIST_DIR}/collective.c
  ${CMAKE_CURRENT_LIST_DIR}/layer.c
  ${CMAKE_CURRENT_LIST_DIR}/layer_cache.c
  ${CMAKE_CURRENT_LIST_DIR}/stage.c
  ${CMAKE_CURRENT_LIST_DIR}/stage_layers.c
  ${CMAKE_CURRENT_LIST_DIR}/estimate.c
  ${CMAKE_CURRENT_LIST_DIR}/knapsack.c
  ${CMAKE_CURRENT_LIST_DIR}/search.c
  ${CMAKE_CURRENT_LIST_DIR}/search_space.c
  ${CMAKE_CURRENT_LIST_DIR}/search_price.c
  ${CMAKE_CURRENT_LIST_DIR}/search_out.c
  ${CMAKE_CURRENT_LIST_DIR}/search_best.c
  ${CMAKE_CURRENT_LIST_DIR}/search_config.c
  ${CMAKE_CURRENT_LIST_DIR}/ratios.c
  ${CMAKE_CURRENT_LIST_DIR}/report.c
  ${CMAKE_CURRENT_LIST_DIR}/cli.c
  ${CMAKE_CURRENT_LIST_DIR}/estimate_cmd.c
)
target_link_libraries(nd_core PUBLIC nd_base PkgConfig::YAML PkgConfig::CJSON Threads::Threads m)

add_executable(nd-estimate ${CMAKE_CURRENT_LIST_DIR}/nd-estimate.c)
target_link_libraries(nd-estimate PRIVATE nd_core)
install(TARGETS nd-estimate RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

add_executable(nd-search ${CMAKE_CURRENT_LIST_DIR}/nd-search.c)
target_link_libraries(nd-search PRIVATE nd_calib)
install(TARGETS nd-search RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
