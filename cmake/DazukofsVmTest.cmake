# SPDX-License-Identifier: GPL-2.0
# dazukofs_add_vm_test(NAME GUEST_SCRIPT [TIMEOUT seconds] [DEBUG] [ONLY series]
#                      [APPEND kernel-args] [DISK megabytes])
#
# Adds ctest tests vm-NAME-6.1 and vm-NAME-6.12 (for the series among
# DAZUKOFS_KERNELS) that run GUEST_SCRIPT in a VM with tests/vm/run-vm
# (TIMEOUT: the guest's time limit, default 600 s). Logs and DAZUKOFS_OUT:
# ${CMAKE_BINARY_DIR}/vm-logs/NAME-SERIES/. Tests are labelled "vm" and take
# 1 processor each, so `ctest -j2` runs at most two VMs at once.
#
# DEBUG (the kernel suites): also vm-NAME-debug on DAZUKOFS_DEBUG_KERNEL, if
# one is installed, labelled "vm;debug", with DAZUKOFS_DEBUG_SLOWDOWN times
# the time limit: KASAN and lockdep make it 2-3x slower than Debian's.
# ONLY: on that series alone (a test whose guest tools need that kernel);
# ONLY debug with DEBUG: on the debug kernel alone.
# APPEND: more kernel command line for the guest (run-vm --append).
# DISK: a blank virtio disk for the guest (run-vm --disk).
# STAGED: the guest installs the build (sd_install): the tests need the
# fixture install-stage (tests/vm/stage-install, BUILD/stage).
# A test's COST is its time limit, so that a clean build's `ctest -j2`, with
# no timings of an earlier run, starts the longest (the debug ones) first.
set(DAZUKOFS_DEBUG_SLOWDOWN 4)
# The staged install the STAGED guests copy in, made once on the host.
add_test(NAME install-stage
  COMMAND ${CMAKE_SOURCE_DIR}/tests/vm/stage-install ${CMAKE_BINARY_DIR})
set_tests_properties(install-stage PROPERTIES FIXTURES_SETUP install-stage
  LABELS vm TIMEOUT 120)
function(dazukofs_add_vm_test name script)
  cmake_parse_arguments(PARSE_ARGV 2 VT "DEBUG;STAGED" "TIMEOUT;ONLY;APPEND;DISK" "")
  if(NOT VT_TIMEOUT)
    set(VT_TIMEOUT 600)
  endif()
  set(_append)
  if(VT_APPEND)
    set(_append --append ${VT_APPEND})
  endif()
  if(VT_DISK)
    list(APPEND _append --disk ${VT_DISK})
  endif()
  if(VT_DEBUG AND DAZUKOFS_DEBUG_KERNEL)
    math(EXPR _dbg_timeout "${VT_TIMEOUT} * ${DAZUKOFS_DEBUG_SLOWDOWN}")
    math(EXPR _dbg_ctest_timeout "${_dbg_timeout} + 120")
    add_test(NAME vm-${name}-debug
      COMMAND ${CMAKE_SOURCE_DIR}/tests/vm/run-vm
              --kernel-image /boot/vmlinuz-${DAZUKOFS_DEBUG_KERNEL}
              --krel ${DAZUKOFS_DEBUG_KERNEL}
              --build ${CMAKE_BINARY_DIR} --script ${script} --name ${name}
              --timeout ${_dbg_timeout} --quiet ${_append})
    set_tests_properties(vm-${name}-debug PROPERTIES
      TIMEOUT ${_dbg_ctest_timeout} PROCESSORS 1 LABELS "vm;debug"
      COST ${_dbg_timeout})
    if(VT_STAGED)
      set_tests_properties(vm-${name}-debug PROPERTIES FIXTURES_REQUIRED install-stage)
    endif()
  endif()
  math(EXPR _ctest_timeout "${VT_TIMEOUT} + 120")
  set(_done)
  # newest release of each series (DAZUKOFS_KERNELS is sorted by scripts/kernels)
  set(_pick)
  foreach(rel IN LISTS DAZUKOFS_KERNELS)
    dazukofs_kernel_series(${rel} _s)
    if(_s)
      set(_pick_${_s} ${rel})
      list(APPEND _pick ${_s})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _pick)
  foreach(s IN LISTS _pick)
    if(VT_ONLY AND NOT s STREQUAL VT_ONLY)
      continue()
    endif()
    add_test(NAME vm-${name}-${s}
      COMMAND ${CMAKE_SOURCE_DIR}/tests/vm/run-vm --kernel ${s} --krel ${_pick_${s}}
              --build ${CMAKE_BINARY_DIR} --script ${script} --name ${name}
              --timeout ${VT_TIMEOUT} --quiet ${_append})
    set_tests_properties(vm-${name}-${s} PROPERTIES
      TIMEOUT ${_ctest_timeout} PROCESSORS 1 LABELS vm COST ${VT_TIMEOUT})
    if(VT_STAGED)
      set_tests_properties(vm-${name}-${s} PROPERTIES FIXTURES_REQUIRED install-stage)
    endif()
  endforeach()
endfunction()
