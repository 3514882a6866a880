# SPDX-License-Identifier: GPL-2.0
# Tiered-memory Linux: tier-weighted interleave and self-tuned DAMON tiering
# on top of Debian's linux-source-6.12.  See README.md.
#
#   make          build the kernel and tools, boot the 2tier VM, show both features
#   make check    every test: host self-tests, KUnit, kselftests in the VM machines
#   make bench    benchmarks, report in build/bench/report.md (QUICK=1: fewer cells;
#                 MATRIX=tiering or MATRIX=sources: one part of the matrix)
#   make prepare  build/src: a git tree of the base with patches/series applied (git am)
#   make refresh  export build/src's commits back into patches/ (git format-patch)
#   make patch    the series for review with a cover letter in build/out/series/
#   make check-series  build every patch of the series (slow: run it in the background)
#   make real-config  build/real/.config: Debian's amd64 config + tiering
#                 (REAL_FLAVOUR=cloud-amd64 for Debian's cloud flavour)
#   make deb      Debian packages for a real machine in build/deb (hours)

TOP := $(CURDIR)
BUILD ?= $(TOP)/build
export BUILD
T := $(TOP)/tools/testing/tiering
SRC := $(BUILD)/src
NPROC := $(shell nproc)
KSFT := $(BUILD)/kselftest
VENV := $(BUILD)/venv

.PHONY: all demo fetch prepare kernel kernel-run kernel-base kernel-nonuma selftests venv check check-host \
	refresh patch check-series bench clean distclean help real-config deb

all: demo

help:
	@sed -n '2,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

fetch:
	@$(T)/fetch-base.sh

prepare: fetch
	@$(T)/prepare.sh

kernel: prepare
	@$(T)/build-kernel.sh test

kernel-run: prepare
	@$(T)/build-kernel.sh run

# The unpatched base with the test kernel's config: not part of make check.
kernel-base: fetch
	@$(T)/build-kernel.sh base

# DAMON's objects without CONFIG_NUMA: a compile test.
kernel-nonuma: prepare
	@$(T)/build-kernel.sh nonuma

# damo from PyPI, unmodified, for the interoperability tests.
venv: $(VENV)/.done
$(VENV)/.done: $(T)/requirements.txt
	python3 -m venv --system-site-packages $(VENV)
	$(VENV)/bin/pip install -q -r $(T)/requirements.txt
	touch $@

# Our kselftests, the base's upstream ones used as a regression guard, and
# mainline's newest DAMON ones against the backported ABI.
UPSTREAM_MM_TESTS := $(shell sed -n 's/^mm_tests: *//p' $(T)/upstream-tests.txt)
selftests: prepare
	@mkdir -p $(KSFT)/tiering $(KSFT)/mm
	@$(MAKE) -s -C $(SRC)/tools/testing/selftests/tiering OUTPUT=$(KSFT)/tiering \
		KHDR_INCLUDES= all
	@mkdir -p $(KSFT)/damon
	@$(MAKE) -s -C $(SRC)/tools/testing/selftests/damon OUTPUT=$(KSFT)/damon \
		KHDR_INCLUDES= all >/dev/null
	@cp $(SRC)/tools/testing/selftests/damon/*.sh $(SRC)/tools/testing/selftests/damon/*.py \
		$(KSFT)/damon/
	@$(MAKE) -s -C $(SRC)/tools/testing/selftests/mm OUTPUT=$(KSFT)/mm KHDR_INCLUDES= \
		$(addprefix $(KSFT)/mm/,$(UPSTREAM_MM_TESTS)) >/dev/null
	@$(T)/fetch-mainline-selftests.sh
	@mkdir -p $(KSFT)/damon-mainline
	@cp $(BUILD)/mainline/damon/*.sh $(BUILD)/mainline/damon/*.py $(KSFT)/damon-mainline/
	@for p in access_memory access_memory_even; do \
		gcc -O2 -Wall -o $(KSFT)/damon-mainline/$$p $(BUILD)/mainline/damon/$$p.c || exit 1; \
	done

check: kernel kernel-run kernel-nonuma selftests venv patch real-config
	python3 $(T)/check.py

# A kernel for real hardware: Debian's configuration of the pinned base with
# the tiering options, checked to survive (part of make check); and its
# packages, which take hours on two cores (not part of make check).
# REAL_FLAVOUR given to make reaches the script through the environment.
real-config: prepare
	@$(T)/real-config.sh

deb: real-config
	@$(T)/make-deb.sh

check-host: fetch venv
	$(VENV)/bin/python3 -m pytest -q -p no:cacheprovider $(T)/selftest tools/mm/tierctl_tests

demo: kernel-run selftests venv
	python3 $(T)/demo.py

# matplotlib for the report's plots and redis for the scale cells' client,
# so make check does not fetch them.
$(VENV)/.bench: $(VENV)/.done
	$(VENV)/bin/pip install -q matplotlib redis
	touch $@

bench: kernel-run selftests venv $(VENV)/.bench
	QUICK=$(QUICK) MATRIX=$(MATRIX) $(VENV)/bin/python3 $(T)/bench.py

refresh:
	@$(T)/refresh.sh

patch: prepare
	@$(T)/make-patch.sh

# Not part of make check: mm/ at every patch, the kernel and KUnit at the
# end of each group of the series.
check-series: kernel
	@$(T)/check-series.sh

clean:
	rm -rf $(BUILD)/test $(BUILD)/run $(BUILD)/vm $(BUILD)/logs $(KSFT)

distclean:
	rm -rf $(BUILD)
