# SPDX-License-Identifier: GPL-2.0
# libFuzzer targets, built with clang (the project's C compiler may be gcc):
#
# dazukofs_add_fuzzer(NAME SOURCES src... [INCLUDES dir...] [LIBS flag...]
#                     [DEFINES def...] [CORPUS dir] [DICT file] [LABEL label])
#
# Builds NAME with -fsanitize=fuzzer,address,undefined and adds the ctest
# test NAME, which runs it for DAZUKOFS_FUZZ_SECONDS (proto-fuzz, the first
# of them) or DAZUKOFS_FUZZ_SHORT_SECONDS (the others: a few seconds each
# in make check), seeded from CORPUS; new inputs go to the build tree,
# crashes to NAME-corpus.crashes/.  Without clang and its libFuzzer
# runtime (Debian: libclang-rt-14-dev) the test is skipped, saying why.
set(DAZUKOFS_FUZZ_SECONDS 60 CACHE STRING "How long ctest runs proto-fuzz (<= 60)")
set(DAZUKOFS_FUZZ_SHORT_SECONDS 5 CACHE STRING
  "How long ctest runs each of the other fuzzers")

find_program(DAZUKOFS_CLANG NAMES clang clang-14)
set(DAZUKOFS_FUZZ_OK FALSE)
set(DAZUKOFS_FUZZ_WHY "no clang found")
if(DAZUKOFS_CLANG)
  set(_probe_dir ${CMAKE_BINARY_DIR}/fuzz-probe)
  file(MAKE_DIRECTORY ${_probe_dir})
  file(WRITE ${_probe_dir}/probe.c
    "#include <stddef.h>\n#include <stdint.h>\n"
    "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"
    "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)"
    " { (void)d; (void)n; return 0; }\n")
  execute_process(
    COMMAND ${DAZUKOFS_CLANG} -fsanitize=fuzzer,address,undefined
            ${_probe_dir}/probe.c -o ${_probe_dir}/probe
    RESULT_VARIABLE _probe_rc OUTPUT_QUIET ERROR_VARIABLE _probe_err)
  if(_probe_rc EQUAL 0)
    set(DAZUKOFS_FUZZ_OK TRUE)
  else()
    set(DAZUKOFS_FUZZ_WHY "${DAZUKOFS_CLANG} -fsanitize=fuzzer does not link (libFuzzer runtime missing? Debian: apt-get install libclang-rt-14-dev): ${_probe_err}")
  endif()
endif()

function(dazukofs_add_fuzzer name)
  cmake_parse_arguments(PARSE_ARGV 1 FZ "" "CORPUS;DICT;LABEL;SECONDS"
    "SOURCES;INCLUDES;LIBS;DEFINES")
  if(NOT FZ_LABEL)
    set(FZ_LABEL fuzz)
  endif()
  if(NOT FZ_SECONDS)
    set(FZ_SECONDS ${DAZUKOFS_FUZZ_SHORT_SECONDS})
  endif()
  if(NOT DAZUKOFS_FUZZ_OK)
    message(WARNING "the fuzz test ${name} is SKIPPED: ${DAZUKOFS_FUZZ_WHY}")
    add_test(NAME ${name}
      COMMAND sh -c "echo '${name} SKIPPED: $0'; exit 77" "${DAZUKOFS_FUZZ_WHY}")
    set_tests_properties(${name} PROPERTIES LABELS ${FZ_LABEL} SKIP_RETURN_CODE 77)
    return()
  endif()
  set(_bin ${CMAKE_CURRENT_BINARY_DIR}/${name})
  set(_inc)
  foreach(d IN LISTS FZ_INCLUDES)
    list(APPEND _inc -I${d})
  endforeach()
  set(_def)
  foreach(d IN LISTS FZ_DEFINES)
    list(APPEND _def -D${d})
  endforeach()
  add_custom_command(OUTPUT ${_bin}
    COMMAND ${DAZUKOFS_CLANG} -g -O1 -Wall -Wextra -Werror -std=gnu11
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
            ${_def} ${_inc} ${FZ_SOURCES} ${FZ_LIBS} -o ${_bin}
    DEPENDS ${FZ_SOURCES}
    IMPLICIT_DEPENDS C ${FZ_SOURCES}
    COMMENT "Building the libFuzzer target ${name} with ${DAZUKOFS_CLANG}"
    VERBATIM)
  add_custom_target(${name}-bin ALL DEPENDS ${_bin})
  set(_work ${CMAKE_CURRENT_BINARY_DIR}/${name}-corpus)
  set(_dict)
  if(FZ_DICT)
    set(_dict -dict=${FZ_DICT})
  endif()
  add_test(NAME ${name}
    COMMAND sh -c "mkdir -p \"$0\" \"$0.crashes\" && exec \"$1\" -max_total_time=$2 -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 -artifact_prefix=\"$0.crashes/\" $3 \"$0\" $4"
            ${_work} ${_bin} ${FZ_SECONDS} "${_dict}" "${FZ_CORPUS}")
  math(EXPR _timeout "${FZ_SECONDS} + 120")
  set_tests_properties(${name} PROPERTIES LABELS ${FZ_LABEL} TIMEOUT ${_timeout})
endfunction()
