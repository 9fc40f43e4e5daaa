# SPDX-License-Identifier: GPL-2.0
# Top-level build for the out-of-tree smc module, its tests and tools.
# `make` builds net/smc/smc.ko; `make test` runs the whole suite in guests.

# Kernel to build for: the running one when its headers are installed, else
# the newest with headers (`make test` boots its guests from the same KVER).
KVER ?= $(shell v=$$(uname -r); [ -e /lib/modules/$$v/build/Makefile ] && echo $$v || \
	ls -1 /lib/modules 2>/dev/null | while read v; do \
	[ -e /lib/modules/$$v/build/Makefile ] && echo $$v; done | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build
SRC := $(CURDIR)
KMAKE = $(MAKE) -C $(KDIR) M=$(SRC)
VM := tools/testing/vm
SELFTESTS := tools/testing/selftests/net/smc
# User tools: the `smc` command (netlink, libmnl) and smc_run + preload library.
TOOLS := tools/smc tools/smc_run

export KVER KDIR

.PHONY: all module debug clean install dkms-install check test demo intree-peer bench \
	selftests-build tools check-debug fuzz help

all: module

module:
	@test -n "$(KVER)" || { echo "no kernel headers found: apt-get install linux-headers-amd64" >&2; exit 1; }
	$(KMAKE) modules

# Same module with pr_debug compiled in and -DDEBUG checks.
debug:
	$(KMAKE) SMC_DEBUG=y modules

clean:
	-$(KMAKE) clean
	-$(MAKE) -C $(KDIR) M=$(SRC)/$(SELFTESTS)/modules clean
	$(MAKE) -C $(SELFTESTS) clean
	for d in $(TOOLS); do $(MAKE) -C $$d clean; done

install: module
	$(KMAKE) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(KVER)

# DKMS: sources to /usr/src/smc-VERSION, built and installed for KVER into
# /lib/modules/KVER/updates/dkms (rebuilt on kernel updates); needs root.
dkms-install:
	KVER=$(KVER) ./scripts/dkms-install.sh

.PHONY: dkms-uninstall
dkms-uninstall:
	./scripts/dkms-install.sh --uninstall

# Static checks: sparse over every file, W=1 warnings as errors.
check:
	$(KMAKE) clean
	$(KMAKE) C=2 W=1 KCFLAGS=-Werror modules 2>&1 | tee .check.log
	@! grep -E "warning:|error:" .check.log

tools:
	for d in $(TOOLS); do $(MAKE) -C $$d || exit 1; done

selftests-build: tools
	$(MAKE) -C $(SELFTESTS)
	$(MAKE) -C $(KDIR) M=$(SRC)/$(SELFTESTS)/modules modules

# Linux's own smc.ko as the interop peer (cached outside the repository;
# the interop tests skip when linux-source-6.1 is not installed).
intree-peer:
	-tools/testing/interop/build-intree-smc.sh $(KVER)
	-tools/testing/interop/build-intree-smc.sh --v1 $(KVER)

# The whole test suite: builds, boots guests, prints "N passed, N failed".
test: module selftests-build intree-peer
	$(VM)/run-suite.sh

# The suite in guests of a debug kernel (KASAN, lockdep, kmemleak, ...),
# built once into /var/tmp/smc-debug; smc.ko is built against it there.
check-debug:
	tools/testing/debug/check-debug.sh

# Two guests, an AF_SMC server and client exchanging data.
demo: module selftests-build
	$(VM)/run-suite.sh --demo

# Benchmarks in two guests: raw RDMA, TCP, this module, Linux's net/smc;
# writes Documentation/bench/ (BENCH_QUICK=1: a short smoke run).
bench:
	tools/testing/bench/run-bench.sh

# libFuzzer targets of the wire decoders, FUZZ_SECONDS (60) each.
fuzz:
	$(MAKE) -C tools/testing/fuzz run

help:
	@echo "make [KVER=..|KDIR=..]  build net/smc/smc.ko"
	@echo "make debug              build with pr_debug and DEBUG checks"
	@echo "make check              sparse + W=1, fails on any warning"
	@echo "make test               run the whole suite in QEMU guests"
	@echo "make check-debug        the suite on a KASAN/lockdep/kmemleak kernel"
	@echo "make demo               AF_SMC client/server across two guests"
	@echo "make fuzz               fuzz the CLC/LLC/CDC decoders (FUZZ_SECONDS=60 each)"
	@echo "make bench              raw RDMA/TCP/ours/net-smc benchmarks -> Documentation/bench"
	@echo "make install            install into /lib/modules/KVER/updates"
	@echo "make dkms-install       install with DKMS for KVER (dkms-uninstall removes it)"
