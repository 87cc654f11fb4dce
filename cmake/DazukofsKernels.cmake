# SPDX-License-Identifier: GPL-2.0
# The kernels to build the module for, and target kmod (part of ALL) building
# ${CMAKE_BINARY_DIR}/kmod/REL/module/dazukofs.ko for each of them.

if(NOT DEFINED CACHE{DAZUKOFS_KERNELS})
  execute_process(COMMAND ${CMAKE_SOURCE_DIR}/scripts/kernels
    OUTPUT_VARIABLE _rels ERROR_VARIABLE _err RESULT_VARIABLE _rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "scripts/kernels: ${_err}\nRun scripts/setup (or set -DDAZUKOFS_KERNELS=REL;...)")
  endif()
  string(REPLACE "\n" ";" _rels "${_rels}")
  set(DAZUKOFS_KERNELS "${_rels}" CACHE STRING
    "Kernel releases to build and test the module for (;-list)")
endif()
message(STATUS "DazukoFS kernels: ${DAZUKOFS_KERNELS}")

# The KASAN + lockdep kernel (scripts/kernels debug), if installed: the module
# is built for it too and the kernel suites also run on it (vm-NAME-debug).
# -DDAZUKOFS_DEBUG_KERNEL= (empty) turns that off.
if(NOT DEFINED CACHE{DAZUKOFS_DEBUG_KERNEL})
  execute_process(COMMAND ${CMAKE_SOURCE_DIR}/scripts/kernels debug
    OUTPUT_VARIABLE _dbg ERROR_QUIET RESULT_VARIABLE _rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    set(_dbg "")
  endif()
  set(DAZUKOFS_DEBUG_KERNEL "${_dbg}" CACHE STRING
    "Debug kernel release to also build and test the module for (empty: none)")
endif()
if(DAZUKOFS_DEBUG_KERNEL)
  message(STATUS "DazukoFS debug kernel: ${DAZUKOFS_DEBUG_KERNEL}")
else()
  message(STATUS "DazukoFS debug kernel: none (scripts/kernels debug)")
endif()

file(GLOB DAZUKOFS_MODULE_SOURCES CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/module/* ${CMAKE_SOURCE_DIR}/include/uapi/linux/dazukofs.h)
list(APPEND DAZUKOFS_MODULE_SOURCES ${CMAKE_SOURCE_DIR}/Kbuild)

# Series (6.1, 6.12) of a release, or "" if it is none of ours.
function(dazukofs_kernel_series rel out)
  if(rel MATCHES "^6\\.1\\.0-")
    set(${out} 6.1 PARENT_SCOPE)
  elseif(rel MATCHES "^6\\.12\\.")
    set(${out} 6.12 PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

set(_kos)
set(_kmod_rels ${DAZUKOFS_KERNELS} ${DAZUKOFS_DEBUG_KERNEL})
list(REMOVE_DUPLICATES _kmod_rels)
foreach(rel IN LISTS _kmod_rels)
  set(_dir ${CMAKE_BINARY_DIR}/kmod/${rel})
  set(_ko ${_dir}/module/dazukofs.ko)
  add_custom_command(OUTPUT ${_ko}
    COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -DDST=${_dir}
            -P ${CMAKE_SOURCE_DIR}/cmake/DazukofsCopyModule.cmake
    COMMAND env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL
            make -C /lib/modules/${rel}/build M=${_dir} modules
    COMMAND ${CMAKE_COMMAND} -E touch_nocreate ${_ko}
    DEPENDS ${DAZUKOFS_MODULE_SOURCES} ${CMAKE_SOURCE_DIR}/cmake/DazukofsCopyModule.cmake
    COMMENT "Building dazukofs.ko for ${rel}"
    VERBATIM)
  list(APPEND _kos ${_ko})

  # W=1 C=1 (sparse) build in a separate copy: any warning or error fails
  add_test(NAME kmod-warnings-${rel}
    COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR}
            -DDST=${CMAKE_BINARY_DIR}/kmod-warnings/${rel} -DREL=${rel}
            -P ${CMAKE_SOURCE_DIR}/cmake/DazukofsKmodWarnings.cmake)
  set_tests_properties(kmod-warnings-${rel} PROPERTIES TIMEOUT 600 LABELS kmod)

  # What the compile-test probes must find: everything since 6.3 for 6.12
  # (FSNOTIFY_GROUP_NOFS is gone there); for 6.1 the ctime accessors, which
  # Debian's 6.1 has backported, and FSNOTIFY_GROUP_NOFS (see
  # module/compat.h for each feature's version).
  dazukofs_kernel_series(${rel} _series)
  if(_series STREQUAL "6.12")
    set(_expect MNT_IDMAP ITER_WRITE_FREEZE COPY_SPLICE_READ KERNEL_TMPFILE_OPEN
        GET_INODE_ACL INODE_GET_CTIME INODE_GET_MTIME FIND_INODE_MARK
        BACKING_FILE_USER_FILE FILE_LOCK_CORE SPLICE_COPY_FILE_RANGE
        STATX_CHANGE_COOKIE BACKING_FILE_RW BACKING_FILE_MMAP
        BACKING_FILE_SPLICE VM_FLAGS_CLEAR GETATTR_NOSEC FMODE_FSNOTIFY_NONE
        IOCB_DIO_CALLER_COMP)
  elseif(_series STREQUAL "6.1")
    set(_expect INODE_GET_CTIME FSNOTIFY_GROUP_NOFS)
  else()
    continue()
  endif()
  add_test(NAME kmod-probes-${rel}
    COMMAND ${CMAKE_COMMAND} -DPROBES=${_dir}/module/probes.txt
            "-DEXPECT=${_expect}" -DREL=${rel}
            -P ${CMAKE_SOURCE_DIR}/cmake/DazukofsCheckProbes.cmake)
  set_tests_properties(kmod-probes-${rel} PROPERTIES LABELS kmod)
endforeach()
add_custom_target(kmod ALL DEPENDS ${_kos})
