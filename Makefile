# floe — the two commands the README gives:
#   make run    install what is missing, build, run the main job
#   make test   install what is missing, build, run every test
#               (unit, SQL and script tests in a Release build; the unit and
#               SQL tests again under AddressSanitizer + UndefinedBehaviorSanitizer;
#               the unit, SQL and MPI-free script tests under ThreadSanitizer
#               (less the peer cross-checks labelled peerheavy);
#               a short libFuzzer run of every fuzz target)
#   make install PREFIX=/opt/floe
#               build (Release) and install the floe program, libfloe.so,
#               libfloe.a, include/floe/*.h and lib/pkgconfig/floe.pc under
#               PREFIX (default /usr/local)
JOBS    := $(shell nproc 2>/dev/null || echo 2)
RELEASE := build/release
ASAN    := build/asan
TSAN    := build/tsan
PREFIX  ?= /usr/local

define build_release
	bash scripts/install-deps.sh
	cmake -S . -B $(RELEASE) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(RELEASE) -j $(JOBS)
endef

.PHONY: run test install

run:
	$(build_release)
	bash scripts/demo.sh $(RELEASE)/floe

test:
	$(build_release)
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DFLOE_SANITIZE=ON >/dev/null
	cmake --build $(ASAN) -j $(JOBS)
	cmake -S . -B $(TSAN) -DCMAKE_BUILD_TYPE=Debug -DFLOE_TSAN=ON >/dev/null
	cmake --build $(TSAN) -j $(JOBS)
	cd $(RELEASE) && ctest --output-on-failure -j $(JOBS)
	cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -L 'unit|sql'
	cd $(TSAN) && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  ctest --output-on-failure -j $(JOBS) -L 'unit|sql|script' -LE 'sqlrt|peerheavy' -E 'script\.(mpi|mpich|rest_mpi)'
	bash scripts/fuzz-smoke.sh

install:
	$(build_release)
	cmake --install $(RELEASE) --prefix "$(PREFIX)"
