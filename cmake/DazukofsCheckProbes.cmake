# SPDX-License-Identifier: GPL-2.0
# cmake -DPROBES=kmod/REL/module/probes.txt -DEXPECT="MNT_IDMAP;..." -DREL=REL
#       -P DazukofsCheckProbes.cmake
# The module's compile-test probes (module/Kbuild, module/probes.c) found
# exactly the features EXPECT names for kernel REL: a probe that breaks, or
# starts answering from something other than the API, fails here instead of
# building a module with the wrong shim.
if(NOT EXISTS ${PROBES})
  message(FATAL_ERROR "kmod-probes ${REL}: no ${PROBES}; build target kmod first")
endif()
file(READ ${PROBES} _found)
string(REGEX MATCHALL "DAZUKOFS_HAVE_[A-Z0-9_]+" _found "${_found}")
string(REPLACE "DAZUKOFS_HAVE_" "" _found "${_found}")
list(SORT _found)
set(_want ${EXPECT})
list(SORT _want)
if(NOT "${_found}" STREQUAL "${_want}")
  message(FATAL_ERROR "kmod-probes ${REL}: probes found [${_found}], expected [${_want}]")
endif()
message("kmod-probes ${REL}: [${_found}] as expected")
