# gbdt: PostgreSQL extension (PGXS).  make [CUDA=auto|on|off] && make install
#   make unittest   - engine unit tests (GoogleTest, no PostgreSQL)
#   make gputest    - CPU-vs-GPU equality program (needs CUDA=on)
#   make installcheck - pgTAP suite against a running server (PG* variables)
EXTENSION = gbdt
# The one version number.  sql/gbdt.sql is the current release's install
# script (built as sql/gbdt--$(EXTVERSION).sql); sql/gbdt--A.sql are frozen
# install scripts of earlier releases and sql/gbdt--A--B.sql the upgrades.
# Every SQL change of a release goes into sql/gbdt.sql AND its upgrade script.
EXTVERSION = 0.3
MODULE_big = gbdt
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql
DATA = $(filter-out $(DATA_built),$(wildcard sql/gbdt--*.sql))
PG_CONFIG ?= pg_config

CUDA ?= auto
NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_SRCS := $(sort $(wildcard cuda/*.cu))
ifeq ($(CUDA),auto)
  ifneq ($(and $(NVCC),$(CUDA_SRCS)),)
    CUDA := on
  else
    CUDA := off
  endif
endif

# The engine (extension/core/<folder>/) and the glue (extension/pg/ and its
# folders by job).  See docs/architecture.md.
CORE_SRCS := $(sort $(wildcard extension/core/*/*.cpp extension/core/*/*/*.cpp))
PG_SRCS := $(sort $(wildcard extension/pg/*.cpp extension/pg/*/*.cpp))
CORE_OBJS := $(CORE_SRCS:.cpp=.o)
PG_OBJS := $(PG_SRCS:.cpp=.o)

ifeq ($(CUDA),on)
  CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
  CUDA_ARCHS ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
  CUDA_OBJS := $(CUDA_SRCS:.cu=.cu.o)
  BACKEND_OBJS := $(CUDA_OBJS)
  CUDA_LIBS := -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/targets/x86_64-linux/lib -lcudart_static -lrt -ldl -lpthread
else
  BACKEND_OBJS := cuda/cuda_unavailable.o
  CUDA_LIBS :=
endif

OBJS = $(PG_OBJS) $(CORE_OBJS) $(BACKEND_OBJS)
ENGINE_OBJS = $(CORE_OBJS) $(BACKEND_OBJS)

# No fused multiply-add anywhere: CPU and GPU must compute the same bits.
# -MMD -MP: each object's header dependencies are written beside it (.d)
# and read back below, so touching one header rebuilds only its users.
GBDT_CXXFLAGS = -std=c++17 -O2 -fPIC -ffp-contract=off -Wall -Wno-unused-parameter -pthread -MMD -MP
# make WERROR=1: -Wextra -Werror for the engine and the glue (CI's warning
# check; objects built without it are not rebuilt by it: make clean first).
WERROR ?= 0
ifeq ($(WERROR),1)
  GBDT_CXXFLAGS += -Wextra -Werror
endif
# The engine includes its own headers by relative path; programs outside it
# (tests, benchmarks, the CUDA backend) include them by folder from here.
ENGINE_INCLUDES = -Iextension/core -Iextension/core/include
# The glue sees only the engine's public headers (extension/core/include/gbdt)
# and its own folders: an #include of an engine internal does not compile.
PG_CPPFLAGS = -Iextension/core/include -Iextension/pg -DGBDT_EXTVERSION='"$(EXTVERSION)"'
SHLIB_LINK = $(CUDA_LIBS) -lstdc++ -lpthread
EXTRA_CLEAN = build $(CORE_OBJS) $(PG_OBJS) $(OBJS:.o=.d) cuda/*.o cuda/*.d

# Debian's server is built with LLVM JIT; we ship no bitcode.
override with_llvm = no

# ==== installcheck: our own target, defined at the end ====
# PGXS's installcheck runs pg_regress for REGRESS (not set here); ours runs the
# pgTAP suite with pg_prove against an already running server.
NO_INSTALLCHECK = 1
# ==== end installcheck ====

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# ==== PostgreSQL majors (15-18): flags and headers of the chosen server ====
# The server's CFLAGS/CXXFLAGS are those of the compiler it was built with:
# a server built with a newer GCC (the PyPI builds of 16 and 18: GCC 14)
# passes flags this machine's gcc/g++ refuse (-fexcess-precision=standard is
# C-only in g++ 12, -Wmissing-variable-declarations is new in GCC 14).  Each
# flag is tried with the compiler that gets it, after the flags kept before
# it (-Werror=format-security needs the -Wformat before it); refused ones are
# dropped.  When the whole list is accepted (Debian's 15) one try settles it.
accepted_flags = $(shell try() { echo 'int x;' | $(1) "$$@" -fsyntax-only -x $(3) - >/dev/null 2>&1; }; \
  set -- $(2); if try "$$@"; then echo "$$*"; else kept=; \
  for f; do try $$kept "$$f" && kept="$$kept $$f"; done; echo "$$kept"; fi)
override CFLAGS := $(call accepted_flags,$(CC),$(CFLAGS),c)
override CXXFLAGS := $(call accepted_flags,$(CXX),$(filter-out -O0 -O1 -O3 -g%,$(CXXFLAGS)),c++) $(GBDT_CXXFLAGS)

# The server the glue was last built against (its pg_config's version and
# include dir), rewritten when it changes: the glue's objects are then
# compiled again against the new server's headers.
PG_SERVER_STAMP := build/pg-server
PG_SERVER_NOW := $(shell $(PG_CONFIG) --version) $(shell $(PG_CONFIG) --includedir-server)
ifneq ($(shell cat $(PG_SERVER_STAMP) 2>/dev/null),$(PG_SERVER_NOW))
  $(shell mkdir -p build && echo '$(PG_SERVER_NOW)' > $(PG_SERVER_STAMP))
endif
$(PG_OBJS): $(PG_SERVER_STAMP)
# ==== end of PostgreSQL majors ====

# libpq, for the coordinator's sessions to its shard servers
# (extension/pg/distributed/), linked the PGXS way as postgres_fdw is.  Its
# include dir goes after the server's (PGXS puts PG_CPPFLAGS before them):
# a client pg_config.h there must not shadow the server's.  A relocated
# server tree without libpq's headers falls back to the system's (libpq-dev).
LIBPQ_INCLUDEDIR := $(firstword $(patsubst %/libpq-fe.h,%,$(wildcard \
  $(libpq_srcdir)/libpq-fe.h /usr/include/postgresql/libpq-fe.h)) $(libpq_srcdir))
override CPPFLAGS += -I$(LIBPQ_INCLUDEDIR)
SHLIB_LINK_INTERNAL = $(libpq)

CONTROL_VERSION := $(shell sed -n "s/^default_version *= *'\(.*\)'.*/\1/p" $(EXTENSION).control)
ifneq ($(CONTROL_VERSION),$(EXTVERSION))
  $(error $(EXTENSION).control default_version '$(CONTROL_VERSION)' differs from EXTVERSION $(EXTVERSION))
endif

sql/$(EXTENSION)--$(EXTVERSION).sql: sql/$(EXTENSION).sql
	cp $< $@

# Sources are never made (else make's built-in `%: %.o` rule could "link"
# cuda/x.cu from cuda/x.cu.o).
$(CUDA_SRCS): ;

# Header dependencies of every object built so far (-MMD -MP).
-include $(OBJS:.o=.d) $(CUDA_SRCS:.cu=.cu.d)

extension/core/%.o: extension/core/%.cpp
	$(CXX) $(GBDT_CXXFLAGS) $(ENGINE_INCLUDES) -c -o $@ $<

cuda/cuda_unavailable.o: cuda/cuda_unavailable.cpp
	$(CXX) $(GBDT_CXXFLAGS) $(ENGINE_INCLUDES) -c -o $@ $<

cuda/%.cu.o: cuda/%.cu
	$(NVCC) -std=c++17 -O2 $(CUDA_ARCHS) -fmad=false -Xcompiler -fPIC,-ffp-contract=off -MMD -MP $(ENGINE_INCLUDES) -Icuda -c -o $@ $<

# The CUDA mode of the last build, rewritten when it changes: the engine
# archive and the shared library (with what links them) are then made again
# with the other backend object even where that object is older than they.
CUDA_MODE_STAMP := build/cuda-mode
CUDA_MODE_LAST := $(shell cat $(CUDA_MODE_STAMP) 2>/dev/null)
ifneq ($(CUDA_MODE_LAST),$(CUDA))
  $(shell mkdir -p build && echo $(CUDA) > $(CUDA_MODE_STAMP))
endif
$(shlib): $(CUDA_MODE_STAMP)

# ---- engine-only programs (no PostgreSQL) ----
build/libgbdt_engine.a: $(ENGINE_OBJS) $(CUDA_MODE_STAMP)
	@mkdir -p build
	rm -f $@ && ar rcs $@ $(ENGINE_OBJS)

# test/unit/ mirrors the engine's folders; each test file is its own object
# (build/unit/...), so make -j compiles them in parallel and a change
# recompiles only the tests that include what changed.
UNIT_SRCS := $(sort $(wildcard test/unit/*.cpp test/unit/*/*.cpp test/unit/*/*/*.cpp))
UNIT_OBJS := $(patsubst test/unit/%.cpp,build/unit/%.o,$(UNIT_SRCS))
build/unit/%.o: test/unit/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(GBDT_CXXFLAGS) $(ENGINE_INCLUDES) -Itest/unit -c -o $@ $<
-include $(UNIT_OBJS:.o=.d)
build/unit_tests: $(UNIT_OBJS) build/libgbdt_engine.a
	$(CXX) $(GBDT_CXXFLAGS) -o $@ $(UNIT_OBJS) build/libgbdt_engine.a $(CUDA_LIBS) -lgtest -lgtest_main -lpthread

unittest: build/unit_tests
	./build/unit_tests

build/gpu_test: test/gpu/gpu_equality.cpp build/libgbdt_engine.a
	$(CXX) $(GBDT_CXXFLAGS) $(ENGINE_INCLUDES) -o $@ $< build/libgbdt_engine.a $(CUDA_LIBS)

build/gpu_bench: test/gpu/gpu_bench.cpp build/libgbdt_engine.a
	$(CXX) $(GBDT_CXXFLAGS) $(ENGINE_INCLUDES) -o $@ $< build/libgbdt_engine.a $(CUDA_LIBS)

gputest: build/gpu_test
	./build/gpu_test

# CPU emulation of the CUDA backend (test/gpu/emu): runs the kernels and the
# backend's host logic without a GPU; no nvcc needed.
EMU_CXXFLAGS = $(GBDT_CXXFLAGS) $(ENGINE_INCLUDES) -DGBDT_CUDA_EMULATION -Itest/gpu/emu -Icuda
-include build/cuda_backend_emu.d
build/cuda_backend_emu.o: cuda/cuda_backend.cu
	@mkdir -p build
	$(CXX) $(EMU_CXXFLAGS) -x c++ -c -o $@ $<

build/gpu_test_emu: test/gpu/gpu_equality.cpp build/cuda_backend_emu.o $(CORE_OBJS)
	$(CXX) $(EMU_CXXFLAGS) -o $@ $< build/cuda_backend_emu.o $(CORE_OBJS)

gpuemu: build/gpu_test_emu
	./build/gpu_test_emu --quick --no-files

build/distributed_bench: test/bench/distributed_bench.cpp build/libgbdt_engine.a
	$(CXX) $(GBDT_CXXFLAGS) $(ENGINE_INCLUDES) -Itest/unit -o $@ $< build/libgbdt_engine.a $(CUDA_LIBS)

build/engine_bench: test/bench/engine_bench.cpp build/libgbdt_engine.a
	$(CXX) $(GBDT_CXXFLAGS) $(ENGINE_INCLUDES) -o $@ $< build/libgbdt_engine.a $(CUDA_LIBS)

bench:
	bash test/bench/run

.PHONY: unittest gputest gpuemu bench

# ==== installcheck ====
# make installcheck [TESTS="test/sql/registry/*.sql ..."]: the pgTAP suite with
# pg_prove against an already running server (PGHOST, PGPORT, PGUSER,
# PGDATABASE), as the calling user: no root, no cluster created.  The first run
# loads the suite's fixtures into that database (scripts/installcheck.sh).
# The full test command, with its own throw-away cluster: bash scripts/test.sh.
installcheck:
	TESTS="$(TESTS)" bash scripts/installcheck.sh

.PHONY: installcheck
# ==== end installcheck ====

# ---- fuzzing ----
# libFuzzer targets (test/fuzz/README.md): the model decoder, the XGBoost
# JSON importer and the params parser, built with clang and ASan/UBSan from
# the engine sources (objects in build/fuzz/obj, never the normal .o files).
#   make fuzz         - every target FUZZ_SECONDS (default 600) seconds
#   make fuzz-short   - every target FUZZ_SHORT_SECONDS (default 20) seconds
FUZZ_CXX ?= clang++
FUZZ_SECONDS ?= 600
FUZZ_SHORT_SECONDS ?= 20
FUZZ_TARGETS := model_decoder xgb_json params shard_requests
FUZZ_FLAGS = -std=c++17 -O1 -g -fno-omit-frame-pointer -ffp-contract=off -pthread \
  -MMD -MP $(ENGINE_INCLUDES) -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJS := $(patsubst extension/core/%.cpp,build/fuzz/obj/%.o,$(CORE_SRCS)) build/fuzz/obj/cuda_unavailable.o
FUZZ_BINS := $(addprefix build/fuzz/fuzz_,$(FUZZ_TARGETS))

-include $(FUZZ_OBJS:.o=.d)
build/fuzz/obj/%.o: extension/core/%.cpp
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/obj/cuda_unavailable.o: cuda/cuda_unavailable.cpp
	@mkdir -p build/fuzz/obj
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/fuzz_%: test/fuzz/fuzz_%.cpp test/fuzz/fuzz_exercise.h $(FUZZ_OBJS)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS)

build/fuzz/gen_seeds: test/fuzz/gen_seeds.cpp $(FUZZ_OBJS)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_OBJS)

fuzz-build: $(FUZZ_BINS) build/fuzz/gen_seeds

fuzz: fuzz-build
	bash test/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-short: fuzz-build
	bash test/fuzz/run.sh $(FUZZ_SHORT_SECONDS) $(FUZZ_TARGETS)

.PHONY: fuzz fuzz-short fuzz-build

# ---- sanitizer build ----
# make SANITIZE=1 ...: the engine, the unit tests and gbdt.so built with
# AddressSanitizer + UndefinedBehaviorSanitizer (gcc).  Used by
# scripts/test-sanitize.sh in its own copy of the tree and its own copy of the
# PostgreSQL installation (never here: it would mix with the normal objects).
#   make sanitize              - the full sanitizer run (all unit tests, all pgTAP files)
#   make soak [SOAK_SECONDS=N] - scripts/soak.sh against the running server (PG* variables)
SANITIZE ?= 0
SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1 -g
ifeq ($(SANITIZE),1)
  GBDT_CXXFLAGS += $(SAN_FLAGS)
  override CXXFLAGS += $(SAN_FLAGS)
  SHLIB_LINK += -fsanitize=address,undefined -fno-sanitize-recover=undefined
endif

sanitize:
	bash scripts/test-sanitize.sh full

SOAK_SECONDS ?= 600
soak:
	bash scripts/soak.sh $(SOAK_SECONDS)

.PHONY: sanitize soak

# make format [FILES="a.cpp b.h"]: clang-format (.clang-format) on the files
# named, whole; without FILES, on the lines of C++ files changed against main
# (committed or not; clang-format-diff), so a change is formatted and the
# code around it is left as it is.
CLANG_FORMAT ?= $(shell command -v clang-format-14 || command -v clang-format)
CLANG_FORMAT_DIFF ?= $(shell command -v clang-format-diff-14 || command -v clang-format-diff)
FORMAT_BASE ?= main
FORMAT_PATHS = '*.h' '*.hpp' '*.cpp' '*.cc' '*.cu' '*.cuh'
format:
	@[ -n "$(CLANG_FORMAT)" ] || { echo "make format: clang-format not found (apt-get install clang-format)"; exit 1; }
	@if [ -n "$(FILES)" ]; then \
	  echo "$(CLANG_FORMAT) -i $(FILES)"; $(CLANG_FORMAT) -i --style=file $(FILES); \
	else \
	  git add -N $$(git ls-files --others --exclude-standard -- $(FORMAT_PATHS)) 2>/dev/null; \
	  changed=$$(git diff --name-only $(FORMAT_BASE) -- $(FORMAT_PATHS) | tr '\n' ' '); \
	  if [ -z "$$changed" ]; then echo "make format: no C++ file changed against $(FORMAT_BASE)"; exit 0; fi; \
	  echo "make format: the changed lines of $$changed"; \
	  git diff -U0 --no-color $(FORMAT_BASE) -- $(FORMAT_PATHS) | \
	    $(CLANG_FORMAT_DIFF) -p1 -i -binary $(CLANG_FORMAT) -style file; \
	fi

.PHONY: format
