# SPDX-License-Identifier: GPL-2.0
# Convenience entry points (kbuild uses the Kbuild file beside this one).
#   make setup   install the Debian packages (scripts/setup)
#   make build   configure and build everything into ./build
#   make check   build, then run every test (ctest -j2)
#   make demo    build, then boot the 6.12 kernel and run tests/vm/guest/demo.sh
#   make clean   remove ./build
BUILD ?= build
CTEST_JOBS ?= 2

.PHONY: all setup build check demo clean
all: build

setup:
	./scripts/setup

build: setup
	cmake -S . -B $(BUILD)
	cmake --build $(BUILD) -j$(CTEST_JOBS)

check: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(CTEST_JOBS)

demo: build
	./tests/vm/run-vm --kernel 6.12 --build $(BUILD) --script tests/vm/guest/demo.sh --name demo

clean:
	rm -rf $(BUILD)
