# manifest.cmake — reading a test manifest of one entry a line (tests/bad/MANIFEST,
# tests/nd_compat/LINES): nd_manifest_lines(PATH OUT) sets OUT to its lines, comments
# and blank lines left out, and makes the configure step depend on the file;
# nd_manifest_unescape(VAR) gives one line back its ';', '[' and ']'.
#
# Read as text, not file(STRINGS): a CMake list splits at ';' and groups elements by
# unbalanced '[' and ']', which regexes and commands hold, so those are swapped out until a
# line is split into its fields.
include_guard(GLOBAL)

function(nd_manifest_lines path out)
  file(READ "${path}" text)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${path}")
  string(REPLACE ";" "@SC@" text "${text}")
  string(REPLACE "[" "@LB@" text "${text}")
  string(REPLACE "]" "@RB@" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(kept "")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^#" AND NOT line MATCHES "^[ \t]*$")
      list(APPEND kept "${line}")
    endif()
  endforeach()
  set(${out} "${kept}" PARENT_SCOPE)
endfunction()

macro(nd_manifest_unescape var)
  string(REPLACE "@LB@" "[" ${var} "${${var}}")
  string(REPLACE "@RB@" "]" ${var} "${${var}}")
  string(REPLACE "@SC@" ";" ${var} "${${var}}")
endmacro()
