# SPDX-License-Identifier: GPL-2.0
# Convenience entry points (kbuild uses the Kbuild file beside this one).
#   make setup   install the Debian packages (scripts/setup)
#   make build   configure and build everything into ./build
#   make check   build, then run every test (ctest -j2)
#   make demo    build, then boot the 6.12 kernel with systemd and show the
#                scanner refusing an infected file (tests/vm/guest/demo.sh)
#   make install build, then cmake --install (honours DESTDIR; PREFIX=... sets
#                the prefix); the module source goes to /usr/src/dazukofs-VERSION
#                for DKMS (Documentation/install.md)
#   make uninstall  remove what the last make install installed
#   make deb     build the Debian packages from a copy of the tree into
#                $(BUILD)/deb/*.deb and check them with lintian (scripts/make-deb)
#   make deb-vm  make deb, then install the packages in a 6.12 VM booted with
#                systemd, scan with them and purge them (tests/deb/vm-deb)
#   make clean   remove ./build
BUILD ?= build
# when make started: make check's wall-clock time includes setup and build
CHECK_START := $(shell date +%s)
CTEST_JOBS ?= 2

.PHONY: all setup build check demo install uninstall deb deb-vm clean
all: build

setup:
	./scripts/setup

build: setup
	cmake -S . -B $(BUILD)
	cmake --build $(BUILD) -j$(CTEST_JOBS)

# The table of each test's seconds, slowest first, ends every run, pass or
# fail: the budget (HACKING.md) is kept by looking at it.
check: build
	@rc=0; \
	ctest --test-dir $(BUILD) --output-on-failure -j$(CTEST_JOBS) || rc=$$?; \
	./scripts/test-times $(BUILD) $$(($$(date +%s) - $(CHECK_START))) || true; \
	exit $$rc

demo: build
	./tests/vm/stage-install $(BUILD)
	./tests/vm/run-vm --kernel 6.12 --build $(BUILD) --script tests/vm/guest/demo.sh --name demo

install: build
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

uninstall:
	cmake --build $(BUILD) --target uninstall

deb: setup
	./scripts/make-deb $(BUILD)/deb

deb-vm: deb
	./tests/deb/vm-deb $(CURDIR) $(BUILD)

clean:
	rm -rf $(BUILD)
