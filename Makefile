# SPDX-License-Identifier: GPL-2.0
# Top-level build for the out-of-tree smc module, its tests and tools.
# `make` builds net/smc/smc.ko; `make test` runs the whole suite in guests.

KVER ?= $(shell ls -1 /lib/modules 2>/dev/null | while read v; do \
	[ -e /lib/modules/$$v/build/Makefile ] && echo $$v; done | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build
SRC := $(CURDIR)
KMAKE = $(MAKE) -C $(KDIR) M=$(SRC)
VM := tools/testing/vm
SELFTESTS := tools/testing/selftests/net/smc

export KVER KDIR

.PHONY: all module debug clean install dkms-install check test demo \
	selftests-build help

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

install: module
	$(KMAKE) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(KVER)

dkms-install:
	./scripts/dkms-install.sh

# Static checks: sparse over every file, W=1 warnings as errors.
check:
	$(KMAKE) clean
	$(KMAKE) C=2 W=1 KCFLAGS=-Werror modules 2>&1 | tee .check.log
	@! grep -E "warning:|error:" .check.log

selftests-build:
	$(MAKE) -C $(SELFTESTS)
	$(MAKE) -C $(KDIR) M=$(SRC)/$(SELFTESTS)/modules modules

# The whole test suite: builds, boots guests, prints "N passed, N failed".
test: module selftests-build
	$(VM)/run-suite.sh

# Two guests, an AF_SMC server and client exchanging data.
demo: module selftests-build
	$(VM)/run-suite.sh --demo

help:
	@echo "make [KVER=..|KDIR=..]  build net/smc/smc.ko"
	@echo "make debug              build with pr_debug and DEBUG checks"
	@echo "make check              sparse + W=1, fails on any warning"
	@echo "make test               run the whole suite in QEMU guests"
	@echo "make demo               AF_SMC client/server across two guests"
	@echo "make install            install into /lib/modules/KVER/updates"
