# SPDX-License-Identifier: GPL-2.0
# The scanner's paths, defined once: the C code gets them as -D definitions
# (DAZUKOFS_SCANNER_PATH_DEFINES, for every target that compiles scanner/
# sources) and the unit as @VARIABLES@ (systemd/dazuko-clamscan.service.in).
# The directories the unit has systemd make (StateDirectory=,
# RuntimeDirectory=, LogsDirectory=) are names under /var/lib, /run and
# /var/log whatever the prefix; the rest belong to other packages.
# Needs GNUInstallDirs (cmake/DazukofsInstall.cmake).
set(DAZUKOFS_QUARANTINE_STATE dazukofs/quarantine)  # StateDirectory=
set(DAZUKOFS_STORE_STATE dazukofs/verdicts)         # StateDirectory=
set(DAZUKOFS_RUNTIME_NAME dazukofs)                 # RuntimeDirectory=
set(DAZUKOFS_LOGS_NAME dazukofs)                    # LogsDirectory=
set(DAZUKOFS_CLAMAV_DB_DIR /var/lib/clamav)         # clamav-freshclam's
set(DAZUKOFS_TEXTFILE_DIR /var/lib/prometheus/node-exporter)  # node exporter's

set(DAZUKOFS_SCANNER_PATH_DEFINES
  DAZUKOFS_SYSCONFDIR="${CMAKE_INSTALL_FULL_SYSCONFDIR}"
  DAZUKOFS_QUARANTINE_DIR="/var/lib/${DAZUKOFS_QUARANTINE_STATE}"
  DAZUKOFS_STORE_DIR="/var/lib/${DAZUKOFS_STORE_STATE}"
  DAZUKOFS_RUNTIME_DIR="/run/${DAZUKOFS_RUNTIME_NAME}"
  DAZUKOFS_LOGS_DIR="/var/log/${DAZUKOFS_LOGS_NAME}"
  DAZUKOFS_CLAMAV_DB_DIR="${DAZUKOFS_CLAMAV_DB_DIR}"
  DAZUKOFS_TEXTFILE_DIR="${DAZUKOFS_TEXTFILE_DIR}")
