# Top-level Makefile: everything real happens in src/Makefile.
#   make                  build src/valkey-server (and the client tools)
#   make test             unit tests, the Tcl suite over TCP, TLS, shared memory, with I/O threads and
#                         sanitized (ASan, and TSan on a subset), the fuzz targets, the RDMA suite in the VM
#   make test-unit        C unit tests only
#   make test-tcl         Tcl integration suite only (./runtest)
#   make test-tls         the Tcl suite with every test client over TLS (./runtest --tls)
#   make test-shm         the Tcl suite with every test client over shared memory (./runtest --shm)
#   make test-sanitize    unit tests and Tcl suite on an ASan+UBSan build (build-sanitize/)
#   make test-io-threads  the Tcl suite with I/O threads serving every client (./runtest --io-threads)
#   make test-tsan        a ThreadSanitizer build (build-tsan/) running the I/O-thread tests and a
#                         subset of the suite with I/O threads on
#   make test-rdma        RDMA suite inside the Soft-RoCE VM (utils/rdma-vm):
#                         tests/rdma/*.sh, then the Tcl files of tests/rdma/tcl-files over RDMA
#   make fuzz             every libFuzzer target (fuzz/) for FUZZ_TIME seconds each (default 60)
#   make test-fuzz        every fuzz target for FUZZ_SHORT_TIME seconds each (default 15; part of make test)
# Build flags: BUILD_TLS=yes|no (default yes), BUILD_RDMA=yes|no (default yes).
# The build uses every core unless -j is given.

.PHONY: all test test-unit test-tcl test-tls test-shm test-io-threads test-sanitize test-tsan test-rdma fuzz \
	test-fuzz clean

JOBS := $(if $(findstring j,$(firstword -$(MAKEFLAGS))),,-j$(shell nproc))

all:
	$(MAKE) -C src $(JOBS)

test-unit: all
	$(MAKE) -C src unit

test-tcl: all
	./runtest

test-tls: all
	./runtest --tls

# Every test client upgrades a Unix-socket connection to shared memory
# (tests/shm/libtclshm.so, built by all).
test-shm: all
	./runtest --shm

# Every server the suite starts serves its clients through I/O threads
# (io-threads 4, events-per-io-thread 0: however light the load).
test-io-threads: all
	./runtest --io-threads

# The unit tests and the Tcl suite once more, on a server built with
# AddressSanitizer and UndefinedBehaviorSanitizer in a copy of src/
# (build-sanitize/, so the normal objects stay as they are). An invalid
# memory access or undefined behaviour aborts the process that hit it,
# which fails its test. Leak checking is off: what only exit() frees would
# drown real reports; allocations too big to satisfy return NULL as they
# do without ASan (tests of the ztry* allocators rely on it). The tools the
# suite drives are the normal build's, and so is the Lua archive
# (deps/build/liblua.a, which `all` has built): LUA_DEPS points the copy at it.
SANITIZE_OPT = -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SANITIZE_ASAN = detect_leaks=0:allocator_may_return_null=1
SANITIZE_DIR = build-sanitize
SANITIZE_MAKE = $(MAKE) -C $(SANITIZE_DIR)/src $(JOBS) OPT="$(SANITIZE_OPT)" LUA_DEPS=$(CURDIR)/deps

test-sanitize: all
	rm -rf $(SANITIZE_DIR) && mkdir -p $(SANITIZE_DIR)/src/unit
	cp src/*.c src/*.h src/Makefile $(SANITIZE_DIR)/src/ && cp src/unit/*.c src/unit/*.h $(SANITIZE_DIR)/src/unit/
	$(SANITIZE_MAKE) valkey-server
	ASAN_OPTIONS=$(SANITIZE_ASAN) $(SANITIZE_MAKE) unit
	ASAN_OPTIONS=$(SANITIZE_ASAN) ./runtest --server-binary $(SANITIZE_DIR)/src/valkey-server

# ThreadSanitizer over the I/O threads: the server built with
# -fsanitize=thread in a copy of src/ (build-tsan/), then the files below
# run with I/O threads serving every client (--io-threads). A race is
# reported on the server's stderr, which fails the file (the harness
# treats a ThreadSanitizer line as a crash). The files are those where the
# main thread and the threads meet most: the thread tests themselves,
# protocol edge cases, replies to other clients (pub/sub, blocking in
# io-threads.tcl, tracking, MONITOR), CLIENT commands, limits and eviction, INFO. Lua and
# jemalloc are not instrumented (Lua runs on the main thread only; TSan
# brings its own malloc).
TSAN_OPT = -O1 -fsanitize=thread -fno-omit-frame-pointer
TSAN_DIR = build-tsan
TSAN_MAKE = $(MAKE) -C $(TSAN_DIR)/src $(JOBS) OPT="$(TSAN_OPT)" LUA_DEPS=$(CURDIR)/deps
TSAN_FILES = unit/io-threads unit/protocol unit/pubsub unit/tracking unit/client unit/client-buffers \
	unit/limits unit/multi unit/info unit/introspection unit/keyspace
TSAN_ENV = TSAN_OPTIONS="second_deadlock_stack=1 history_size=4"

test-tsan: all
	rm -rf $(TSAN_DIR) && mkdir -p $(TSAN_DIR)/src/unit
	cp src/*.c src/*.h src/Makefile $(TSAN_DIR)/src/ && cp src/unit/*.c src/unit/*.h $(TSAN_DIR)/src/unit/
	$(TSAN_MAKE) valkey-server
	$(TSAN_ENV) ./runtest --io-threads --timeout 900 --server-binary $(TSAN_DIR)/src/valkey-server \
		$(foreach f,$(TSAN_FILES),--single tests/$(f))

# The whole Tcl suite over RDMA (./runtest --rdma: every test client is an
# RDMA channel, tests/rdma/tclrdma.c).  Inside the TCG VM everything costs
# 20-50x its native CPU time (a 1 KB SET round trip is ~2 ms whether over
# TCP or RDMA), so the tests keep their command counts down (bulk loads go
# through r_pipeline).  RDMA_TCL_ARGS adds runtest options, e.g.
# RDMA_TCL_ARGS="--single tests/unit/protocol" for one file, or --verbose.
RDMA_TCL_ARGS ?=

# The Tcl part runs over RDMA only the files listed in tests/rdma/tcl-files
# (those that exercise the transport), with a VM time-out of 3-5 times
# their measured time (110-170 s with the VM's boot: a CI machine may be
# slower); RDMA_TCL_ARGS adds runtest options.
RDMA_TCL_VM_TIMEOUT ?= 600

test-rdma: all
	$(MAKE) -C src tclrdma unit/test_conn_rdma
	./utils/rdma-vm --check && ./utils/rdma-vm tests/rdma/run.sh && ./utils/rdma-vm tests/rdma/tools.sh && \
		./utils/rdma-vm tests/rdma/replication.sh && ./utils/rdma-vm tests/rdma/repl-region.sh
	RDMA_VM_TIMEOUT=$(RDMA_TCL_VM_TIMEOUT) ./utils/rdma-vm ./runtest --rdma --timeout 240 \
		$$(awk '!/^#/ && NF { print "--single", $$1 }' tests/rdma/tcl-files) $(RDMA_TCL_ARGS)

# The fuzz targets (fuzz/Makefile): each parser that reads outside bytes,
# built with clang, libFuzzer and the sanitizers over a copy of src/.
FUZZ_TIME ?= 60
FUZZ_SHORT_TIME ?= 15

fuzz:
	$(MAKE) -C fuzz $(JOBS) all
	$(MAKE) -C fuzz run FUZZ_TIME=$(FUZZ_TIME)

test-fuzz:
	$(MAKE) -C fuzz $(JOBS) all
	$(MAKE) -C fuzz short FUZZ_SHORT_TIME=$(FUZZ_SHORT_TIME)

test: all
	$(MAKE) -C src unit
	./runtest
	./runtest --tls
	./runtest --shm
	./runtest --io-threads
	$(MAKE) test-sanitize
	$(MAKE) test-tsan
	$(MAKE) test-fuzz
	$(MAKE) test-rdma

clean:
	$(MAKE) -C src clean
	$(MAKE) -C fuzz clean
	rm -rf $(SANITIZE_DIR) $(TSAN_DIR)
