# lockstep build. Only a C compiler and make are assumed; tools/deps.sh installs the
# Debian packages we need when run as root, otherwise names them in one line.
#
#   make            build build/lockstep
#   make run        build, then run the main job on the bundled sample
#   make check      build and run every test (ends with "N passed, N failed, N skipped")
#   make asan       the tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make fuzz       build the libFuzzer targets (needs clang)
#   make docs       regenerate docs/KNOBS.md from the knob table
#   make bench      build, then run the speed benchmark (bench/README.md; not part of check)

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
CFLAGS  ?=
SAN     ?=
OMP     ?= -fopenmp
WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ALLCFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -g $(OPT) $(LTO) $(WARN) $(SAN) $(OMP) -Isrc -I$(BUILD)/gen $(CFLAGS)
LDLIBS   = -lzstd -llzma -lz -lm
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

LIB_SRC  = $(filter-out src/cli/%,$(wildcard src/*/*.c))
CLI_SRC  = $(wildcard src/cli/*.c)
TEST_SRC = $(wildcard tests/*.c)
GEN_SRC  = $(BUILD)/gen/presets.c
PRESETS  = $(sort $(wildcard configs/*.cfg))

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/gen/presets.o
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
DEPS     = $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)

.PHONY: all run check asan fuzz docs deps clean bench
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

$(BUILD)/obj/%.o: %.c | $(BUILD)/gen/presets.c $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -MMD -MP -c -o $@ $<

# Presets are compiled into the binary so `--preset NAME` works from any directory.
$(BUILD)/tools/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -Wall -Wextra -Werror -o $@ $<

$(BUILD)/gen/presets.c: $(BUILD)/tools/embed $(PRESETS)
	@mkdir -p $(dir $@)
	$(BUILD)/tools/embed $@ $(PRESETS)

$(BUILD)/gen/presets.o: $(BUILD)/gen/presets.c | $(DEPS_OK)
	$(CC) $(ALLCFLAGS) -c -o $@ $<

run: deps $(BUILD)/lockstep
	$(BUILD)/lockstep run

check: deps $(BUILD)/lockstep $(BUILD)/tests
	LOCKSTEP_BIN=$(BUILD)/lockstep $(BUILD)/tests

asan:
	$(MAKE) BUILD=build/asan OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" check

FUZZ_SRC = $(wildcard fuzz/*.c)
fuzz:
	$(MAKE) CC=clang BUILD=build/fuzzlib OPT=-O1 SAN="-fsanitize=fuzzer-no-link,address,undefined" build/fuzzlib/liblockstep.a
	@mkdir -p build/fuzz
	for f in $(FUZZ_SRC); do \
	  clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Isrc -fopenmp -fsanitize=fuzzer,address,undefined \
	    -o build/fuzz/$$(basename $$f .c) $$f build/fuzzlib/liblockstep.a $(LDLIBS) || exit 1; \
	done

# The benchmark driver is a separate program: it times `lockstep run` child processes.
$(BUILD)/lsbench: bench/lsbench.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 $(WARN) -o $@ $<

bench: $(BUILD)/lockstep $(BUILD)/lsbench
	$(BUILD)/lsbench $(BENCHFLAGS)

docs: $(BUILD)/lockstep
	$(BUILD)/lockstep config docs > docs/KNOBS.md.tmp && mv docs/KNOBS.md.tmp docs/KNOBS.md

clean:
	rm -rf build

-include $(DEPS)
