# SPDX-License-Identifier: GPL-2.0
# cmake -DMANIFEST=BUILD/install_manifest.txt -P DazukofsUninstall.cmake
#
# Remove every file the manifest lists, below $DESTDIR (the manifest has the
# paths without DESTDIR: uninstall with the DESTDIR you installed with), then
# the directories left empty that belong to the project: one named dazukofs or
# dazukofs-* or inside one (/usr/src/dazukofs-VERSION/..., share/doc/dazukofs;
# DESTDIR itself does not count). Missing files are reported, not an error.
if(NOT MANIFEST)
  message(FATAL_ERROR "usage: cmake -DMANIFEST=install_manifest.txt -P ${CMAKE_CURRENT_LIST_FILE}")
endif()
if(NOT EXISTS "${MANIFEST}")
  message(FATAL_ERROR "${MANIFEST} does not exist: nothing was installed from this build directory")
endif()

file(STRINGS "${MANIFEST}" _files)
set(_destdir "$ENV{DESTDIR}")
set(_dirs)
foreach(f IN LISTS _files)
  if(IS_SYMLINK "${_destdir}${f}" OR EXISTS "${_destdir}${f}")
    message(STATUS "Uninstalling ${_destdir}${f}")
    file(REMOVE "${_destdir}${f}")
    if(IS_SYMLINK "${_destdir}${f}" OR EXISTS "${_destdir}${f}")
      message(FATAL_ERROR "cannot remove ${_destdir}${f}")
    endif()
  else()
    message(STATUS "Not installed: ${_destdir}${f}")
  endif()
  get_filename_component(_d "${f}" DIRECTORY)
  list(APPEND _dirs "${_d}")
endforeach()

# Does the directory (path without DESTDIR) belong to the project: is it, or is
# it in, dazukofs or dazukofs-*?
function(_ours dir out)
  set(${out} FALSE PARENT_SCOPE)
  string(REPLACE "/" ";" _parts "${dir}")
  foreach(p IN LISTS _parts)
    if(p MATCHES "^dazukofs(-.*)?$")
      set(${out} TRUE PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

list(REMOVE_DUPLICATES _dirs)
foreach(d IN LISTS _dirs)
  while(d MATCHES "^/." AND IS_DIRECTORY "${_destdir}${d}" AND NOT IS_SYMLINK "${_destdir}${d}")
    _ours("${d}" _is_ours)
    file(GLOB _left "${_destdir}${d}/*" "${_destdir}${d}/.*")
    if(NOT _is_ours OR _left)
      break()
    endif()
    message(STATUS "Removing empty directory ${_destdir}${d}")
    # rmdir(1), not file(REMOVE_RECURSE): it removes nothing but an empty directory
    execute_process(COMMAND rmdir -- "${_destdir}${d}" RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      break()
    endif()
    get_filename_component(d "${d}" DIRECTORY)
  endwhile()
endforeach()
