# SPDX-License-Identifier: GPL-2.0
# cmake -DSRC=srcdir -DDST=dir -DREL=release -P DazukofsKmodWarnings.cmake
# Build a fresh copy of the module with W=1 C=1 (sparse) for kernel REL and
# fail if the output has any "warning:" or "error:" line.
file(REMOVE_RECURSE ${DST})
execute_process(COMMAND ${CMAKE_COMMAND} -DSRC=${SRC} -DDST=${DST}
  -P ${CMAKE_CURRENT_LIST_DIR}/DazukofsCopyModule.cmake RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "copying the module sources failed")
endif()
execute_process(
  COMMAND env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL
          make -C /lib/modules/${REL}/build M=${DST} W=1 C=1 modules
  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
string(REGEX MATCHALL "[^\n]*(warning|error):[^\n]*" bad "${out}")
if(bad)
  string(REPLACE ";" "\n" bad "${bad}")
  message("${out}")
  message(FATAL_ERROR "kmod-warnings ${REL}: W=1 C=1 build reports:\n${bad}")
endif()
if(NOT rc EQUAL 0)
  message("${out}")
  message(FATAL_ERROR "kmod-warnings ${REL}: build failed (status ${rc})")
endif()
message("kmod-warnings ${REL}: clean W=1 C=1 build")
