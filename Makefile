# lockstep build. Only a C compiler and make are assumed; tools/deps.sh installs the
# Debian packages we need when run as root, otherwise names them in one line.
#
#   make            build build/lockstep
#   make run        build, then run the main job on the bundled sample
#   make check      build and run every test (ends with "N passed, N failed, N skipped")
#   make asan       the tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make tsan       the parallel runs under ThreadSanitizer (tools/tsan-check.sh)
#   make fuzz       build the libFuzzer targets (needs clang)
#   make docs       regenerate docs/KNOBS.md from the knob table
#   make bench      build, then run the speed benchmark (bench/README.md; not part of check)

CC      ?= cc
BUILD   ?= build
# -O3 over -O2: about 6% fewer instructions and 4-6% less time on every workload (the loops
# over banks, sub-partitions and warps are unrolled or vectorised); the statistics do not change.
OPT     ?= -O3
CFLAGS  ?=
SAN     ?=
OMP     ?= -fopenmp
WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ALLCFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -g $(OPT) $(LTO) $(PGO_FLAGS) $(WARN) $(SAN) $(OMP) \
            -Isrc -I$(BUILD)/gen $(CFLAGS)
LDLIBS   = -lzstd -llzma -ldeflate -lz -lm
# A static binary skips the dynamic loader (mapping five libraries, relocations, symbol
# lookups): about half the start-up cost of a short run. Used when the toolchain can link
# one (static libraries present, e.g. gcc's libgomp.a; not clang's libomp) and no sanitizer
# is on; otherwise the ordinary dynamic link. Evaluated only when the binary is linked.
# The first use stores the answer, so the link's echo and the link itself probe once.
STATIC_PROBE = $(BUILD)/.static-probe
LDSTATIC_TRY = $(if $(SAN),,$(shell printf 'int main(void){return 0;}\n' | \
                 $(CC) $(OMP) -static -x c - -o $(STATIC_PROBE) $(LDLIBS) >/dev/null 2>&1 \
                 && echo -static; rm -f $(STATIC_PROBE)))
LDSTATIC = $(eval LDSTATIC := $(LDSTATIC_TRY))$(LDSTATIC)

# Link-time optimisation: the hot paths cross modules (queues, statistics, cache and DRAM
# accessors), and with it a run executes about a tenth fewer instructions. Used when the
# toolchain can compile, archive and link LTO objects (a probe does all three, once, like the
# static link above); never under a sanitizer.
LTO_PROBE = $(BUILD)/.lto-probe
LTO_TRY = $(if $(SAN),,$(shell mkdir -p $(LTO_PROBE) && cd $(LTO_PROBE) && \
            printf 'int f(void){return 0;}\n' > f.c && \
            printf 'int f(void);\nint main(void){return f();}\n' > m.c && \
            $(CC) -flto=auto -c f.c -o f.o >/dev/null 2>&1 && ar rcs libf.a f.o >/dev/null 2>&1 && \
            $(CC) -flto=auto $(OMP) m.c libf.a -o m >/dev/null 2>&1 && echo -flto=auto; \
            rm -rf $(abspath $(LTO_PROBE))))
LTO = $(eval LTO := $(LTO_TRY))$(LTO)

# Profile-guided optimisation (gcc): the simulator is first built instrumented in
# $(BUILD)/pgo, run over the bundled samples (tools/pgo-train.sh: one and two threads, text
# and native traces), then built again with that profile: about 8% fewer instructions on
# every workload. The statistics do not change. PGO=0 skips it (a quicker edit-build loop);
# it is off under a sanitizer and where the compiler lacks the options (clang: its profile
# format needs llvm-profdata). The profile is retrained only when the instrumented binary
# changes; every object depends on it. Both builds compile each source with -dumpbase set to
# its path, so the profile file's name and the identities of static functions (which gcc
# derives from the output name) are the same in both.
PGO ?= 1
PGO_DIR   = $(BUILD)/pgo
PGO_DATA ?= $(abspath $(PGO_DIR)/data)
PGO_STAMP = $(PGO_DIR)/profile.stamp
PGO_PROBE = $(BUILD)/.pgo-probe
PGO_TRY = $(if $(SAN),,$(if $(filter 1,$(PGO)),$(shell mkdir -p $(PGO_PROBE) && \
            cd $(PGO_PROBE) && printf 'int main(void){return 0;}\n' > m.c && \
            $(CC) -fprofile-generate=$(abspath $(PGO_PROBE))/d -fprofile-update=prefer-atomic \
              -dumpbase m.c m.c -o m >/dev/null 2>&1 && ./m && \
            $(CC) -fprofile-use=$(abspath $(PGO_PROBE))/d -fprofile-partial-training \
              -dumpbase m.c -c m.c -o m.o >/dev/null 2>&1 && \
            echo on; rm -rf $(abspath $(PGO_PROBE)))))
PGO_ON = $(eval PGO_ON := $(PGO_TRY))$(PGO_ON)
PGO_FLAGS = $(if $(filter gen,$(PGO)),-fprofile-generate=$(PGO_DATA) -fprofile-update=prefer-atomic,\
            $(if $(PGO_ON),-fprofile-use=$(PGO_DATA) -fprofile-partial-training -Wno-missing-profile))
PGO_DEP = $(if $(filter gen,$(PGO)),,$(if $(PGO_ON),$(PGO_STAMP)))

LIB_SRC  = $(filter-out src/cli/%,$(wildcard src/*/*.c))
CLI_SRC  = $(wildcard src/cli/*.c)
TEST_SRC = $(wildcard tests/*.c)
GEN_SRC  = $(BUILD)/gen/presets.c
PRESETS  = $(sort $(wildcard configs/*.cfg))

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/gen/presets.o
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
DEPS     = $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)

.PHONY: all run check asan tsan fuzz docs deps clean bench FORCE
all: $(BUILD)/lockstep

# Checked once per build directory, before anything compiles (also under make -j).
DEPS_OK  = $(BUILD)/.deps-ok
deps: $(DEPS_OK)
$(DEPS_OK): tools/deps.sh
	@sh tools/deps.sh
	@mkdir -p $(dir $@) && touch $@

$(BUILD)/liblockstep.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# libgomp's offloading code calls dlopen, which a static link warns about; lockstep has no
# target regions, so that one warning is dropped (anything else the linker says is shown).
$(BUILD)/lockstep: $(CLI_OBJ) $(BUILD)/liblockstep.a
	@echo $(CC) $(ALLCFLAGS) $(LDSTATIC) -o $@ $^ $(LDLIBS)
	@$(CC) $(ALLCFLAGS) $(LDSTATIC) -o $@ $^ $(LDLIBS) 2>$@.ld; s=$$?; \
	  grep -v -e 'gomp_target_init' -e "Using 'dlopen' in statically linked" $@.ld >&2; \
	  rm -f $@.ld; exit $$s

$(BUILD)/tests: $(TEST_OBJ) $(BUILD)/liblockstep.a
	$(CC) $(ALLCFLAGS) -o $@ $^ $(LDLIBS)

# Objects depend on the compiler and flags that built them, so changing CC, OPT or CFLAGS
# rebuilds them (under PGO an object left from other flags would fail the profile check).
# The stamp is rewritten only when they differ; make sees its time change only then.
FLAGS_STAMP = $(BUILD)/.flags
FLAGS_NOW = $(CC) $(ALLCFLAGS)
$(FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(FLAGS_NOW)' ]; then printf '%s\n' '$(FLAGS_NOW)' > $@; fi

$(BUILD)/obj/%.o: %.c $(PGO_DEP) $(FLAGS_STAMP) | $(BUILD)/gen/presets.c $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) $(if $(strip $(PGO_FLAGS)),-dumpbase $<) -MMD -MP -c -o $@ $<

# Presets are compiled into the binary so `--preset NAME` works from any directory.
$(BUILD)/tools/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -Wall -Wextra -Werror -o $@ $<

$(BUILD)/gen/presets.c: $(BUILD)/tools/embed $(PRESETS)
	@mkdir -p $(dir $@)
	$(BUILD)/tools/embed $@ $(PRESETS)

$(BUILD)/gen/presets.o: $(BUILD)/gen/presets.c $(PGO_DEP) $(FLAGS_STAMP) | $(DEPS_OK)
	$(CC) $(ALLCFLAGS) -c -o $@ $<

run: deps $(BUILD)/lockstep
	$(BUILD)/lockstep run

check: deps $(BUILD)/lockstep $(BUILD)/tests
	LOCKSTEP_BIN=$(BUILD)/lockstep $(BUILD)/tests

asan:
	$(MAKE) BUILD=build/asan OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" check

# The parallel code under ThreadSanitizer (gcc): tools/tsan-check.sh says what runs.
tsan:
	$(MAKE) BUILD=build/tsan OPT=-O1 SAN="-fsanitize=thread" build/tsan/lockstep build/tsan/tests
	tools/tsan-check.sh build/tsan/lockstep build/tsan/tests build/tsan/check

FUZZ_SRC = $(wildcard fuzz/*.c)
fuzz:
	$(MAKE) CC=clang BUILD=build/fuzzlib OPT=-O1 SAN="-fsanitize=fuzzer-no-link,address,undefined" build/fuzzlib/liblockstep.a
	@mkdir -p build/fuzz
	for f in $(FUZZ_SRC); do \
	  clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Isrc -fopenmp -fsanitize=fuzzer,address,undefined \
	    -o build/fuzz/$$(basename $$f .c) $$f build/fuzzlib/liblockstep.a $(LDLIBS) || exit 1; \
	done

# The sub-make brings the instrumented binary up to date (it has its own dependency files);
# the stamp, and with it every object, changes only when that binary or the training did.
$(PGO_STAMP): FORCE | $(DEPS_OK)
	@$(MAKE) -s --no-print-directory BUILD=$(PGO_DIR) PGO=gen PGO_DATA=$(PGO_DATA) $(PGO_DIR)/lockstep
	@if [ ! -f $@ ] || [ $(PGO_DIR)/lockstep -nt $@ ] || [ tools/pgo-train.sh -nt $@ ]; then \
	  echo "pgo: training $(PGO_DIR)/lockstep (tools/pgo-train.sh)"; \
	  rm -rf $(PGO_DATA) && sh tools/pgo-train.sh $(PGO_DIR)/lockstep $(PGO_DIR)/train && \
	  touch $@; fi

# The benchmark driver is a separate program: it times `lockstep run` child processes.
$(BUILD)/lsbench: bench/lsbench.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 $(WARN) -pthread -o $@ $<

# Median CPU time of short commands run in alternation (bench/README.md, "altcpu").
$(BUILD)/altcpu: bench/altcpu.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 $(WARN) -o $@ $<

bench: $(BUILD)/lockstep $(BUILD)/lsbench
	$(BUILD)/lsbench $(BENCHFLAGS)

docs: $(BUILD)/lockstep
	$(BUILD)/lockstep config docs > docs/KNOBS.md.tmp && mv docs/KNOBS.md.tmp docs/KNOBS.md

clean:
	rm -rf build

-include $(DEPS)
