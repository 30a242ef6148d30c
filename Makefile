# Top-level Makefile: everything real happens in src/Makefile.
#   make                  build src/valkey-server (and the client tools)
#   make test             unit tests, the Tcl suite over TCP, and the RDMA suite in the VM
#   make test-unit        C unit tests only
#   make test-tcl         Tcl integration suite only (./runtest)
#   make test-rdma        RDMA suite inside the Soft-RoCE VM (utils/rdma-vm):
#                         tests/rdma/*.sh, then the whole Tcl suite over RDMA
# Build flags: BUILD_TLS=yes|no (default no: not written yet), BUILD_RDMA=yes|no (default yes).
# The build uses every core unless -j is given.

.PHONY: all test test-unit test-tcl test-rdma clean

JOBS := $(if $(findstring j,$(firstword -$(MAKEFLAGS))),,-j$(shell nproc))

all:
	$(MAKE) -C src $(JOBS)

test-unit: all
	$(MAKE) -C src unit

test-tcl: all
	./runtest

# The whole Tcl suite over RDMA (./runtest --rdma: every test client is an
# RDMA channel, tests/rdma/tclrdma.c).  Inside the TCG VM everything costs
# 20-50x its native CPU time (a 1 KB SET round trip is ~2 ms whether over
# TCP or RDMA), so the tests keep their command counts down (bulk loads go
# through r_pipeline).  RDMA_TCL_ARGS adds runtest options, e.g.
# RDMA_TCL_ARGS="--single tests/unit/protocol" for one file, or --verbose.
RDMA_TCL_ARGS ?=

test-rdma: all
	$(MAKE) -C src tclrdma
	./utils/rdma-vm --check && ./utils/rdma-vm tests/rdma/run.sh && ./utils/rdma-vm tests/rdma/tools.sh
	RDMA_VM_TIMEOUT=1500 ./utils/rdma-vm ./runtest --rdma --timeout 600 $(RDMA_TCL_ARGS)

test: all
	$(MAKE) -C src unit
	./runtest
	$(MAKE) test-rdma

clean:
	$(MAKE) -C src clean
