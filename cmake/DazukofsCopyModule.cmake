# SPDX-License-Identifier: GPL-2.0
# cmake -DSRC=srcdir -DDST=dir -P DazukofsCopyModule.cmake
# Make DST a copy of SRC's Kbuild, module/ and the UAPI header the module
# includes (changed files only, so kbuild
# rebuilds incrementally; sources deleted from SRC are deleted from DST).
file(MAKE_DIRECTORY ${DST}/module)
file(COPY_FILE ${SRC}/Kbuild ${DST}/Kbuild ONLY_IF_DIFFERENT)
file(MAKE_DIRECTORY ${DST}/include/uapi/linux)
file(COPY_FILE ${SRC}/include/uapi/linux/dazukofs.h
  ${DST}/include/uapi/linux/dazukofs.h ONLY_IF_DIFFERENT)
file(GLOB _src RELATIVE ${SRC}/module ${SRC}/module/*)
foreach(f IN LISTS _src)
  if(NOT IS_DIRECTORY ${SRC}/module/${f})
    file(COPY_FILE ${SRC}/module/${f} ${DST}/module/${f} ONLY_IF_DIFFERENT)
  endif()
endforeach()
file(GLOB _dst RELATIVE ${DST}/module ${DST}/module/*.c ${DST}/module/*.h
  ${DST}/module/Kbuild ${DST}/module/Makefile)
foreach(f IN LISTS _dst)
  if(NOT EXISTS ${SRC}/module/${f})
    file(REMOVE ${DST}/module/${f})
  endif()
endforeach()
