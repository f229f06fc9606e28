# floe — the two commands the README gives:
#   make run    install what is missing, build, run the main job
#   make test   install what is missing, build, run every test
#               (unit, SQL and script tests in a Release build, the unit and
#               SQL tests again under AddressSanitizer + UndefinedBehaviorSanitizer, and
#               a short libFuzzer run of every fuzz target)
JOBS    := $(shell nproc 2>/dev/null || echo 2)
RELEASE := build/release
ASAN    := build/asan

define build_release
	bash scripts/install-deps.sh
	cmake -S . -B $(RELEASE) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(RELEASE) -j $(JOBS)
endef

.PHONY: run test

run:
	$(build_release)
	bash scripts/demo.sh $(RELEASE)/floe

test:
	$(build_release)
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DFLOE_SANITIZE=ON >/dev/null
	cmake --build $(ASAN) -j $(JOBS)
	cd $(RELEASE) && ctest --output-on-failure -j $(JOBS)
	cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -L 'unit|sql'
	bash scripts/fuzz-smoke.sh
