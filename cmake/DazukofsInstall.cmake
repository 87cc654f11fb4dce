# SPDX-License-Identifier: GPL-2.0
# Install rules for the module source (for DKMS) and the `uninstall` target.
#
# `cmake --install BUILD` (honours DESTDIR) puts what DKMS needs to build
# dazukofs.ko into ${DAZUKOFS_DKMS_SOURCE_DIR}/dazukofs-VERSION/: Kbuild,
# dkms.conf (from dkms.conf.in), VERSION, module/{*.c,*.h,Kbuild} and include/uapi/linux/dazukofs.h.
# Then: dkms install dazukofs/VERSION (Documentation/install.md).
#
# Userspace install rules (binaries, libraries, man pages, units) belong to
# their own directories and use the GNUInstallDirs variables included here.
include(GNUInstallDirs)

# The installed programs find libdazukofs without ldconfig where its
# directory is not one the loader searches anyway (/usr/local/lib, the
# default prefix's): a RUNPATH to it.  None for a system directory (the
# Debian packages' /usr/lib/x86_64-linux-gnu): it would serve nothing, and
# lintian refuses it.
list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${CMAKE_INSTALL_FULL_LIBDIR}" _dz_system_libdir)
if(_dz_system_libdir EQUAL -1 AND NOT CMAKE_INSTALL_RPATH)
  set(CMAKE_INSTALL_RPATH "${CMAKE_INSTALL_FULL_LIBDIR}")
endif()

# DKMS looks for sources in /usr/src only (its source_tree), so this does not
# follow CMAKE_INSTALL_PREFIX: with the default prefix /usr/local it is still
# /usr/src. DESTDIR is prepended as for every other path.
set(DAZUKOFS_DKMS_SOURCE_DIR /usr/src CACHE PATH
  "Where the module source for DKMS is installed (as dazukofs-VERSION/); DKMS's source tree")

set(DAZUKOFS_DKMS_DIR ${DAZUKOFS_DKMS_SOURCE_DIR}/dazukofs-${PROJECT_VERSION})
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/VERSION)

# dkms.conf with the version as a literal (dkms.conf.in)
configure_file(${CMAKE_SOURCE_DIR}/dkms.conf.in ${CMAKE_BINARY_DIR}/dkms.conf @ONLY)
install(FILES ${CMAKE_SOURCE_DIR}/Kbuild ${CMAKE_BINARY_DIR}/dkms.conf
              ${CMAKE_SOURCE_DIR}/VERSION
  DESTINATION ${DAZUKOFS_DKMS_DIR} COMPONENT dkms)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/module/
  DESTINATION ${DAZUKOFS_DKMS_DIR}/module COMPONENT dkms
  FILES_MATCHING PATTERN "*.c" PATTERN "*.h" PATTERN "Kbuild")
install(FILES ${CMAKE_SOURCE_DIR}/include/uapi/linux/dazukofs.h
  DESTINATION ${DAZUKOFS_DKMS_DIR}/include/uapi/linux COMPONENT dkms)

# `cmake --build BUILD --target uninstall` removes what the last
# `cmake --install BUILD` installed (BUILD/install_manifest.txt; set the same
# DESTDIR as for the install) and the then empty directories of the module source.
add_custom_target(uninstall
  COMMAND ${CMAKE_COMMAND} -DMANIFEST=${CMAKE_BINARY_DIR}/install_manifest.txt
          -P ${CMAKE_SOURCE_DIR}/cmake/DazukofsUninstall.cmake
  COMMENT "Removing the files listed in install_manifest.txt"
  VERBATIM)
