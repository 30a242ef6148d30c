# Top-level Makefile: everything real happens in src/Makefile.
#   make                  build src/valkey-server (and the client tools)
#   make test             unit tests, the Tcl suite over TCP, and the RDMA suite in the VM
#   make test-unit        C unit tests only
#   make test-tcl         Tcl integration suite only (./runtest)
#   make test-rdma        RDMA suite inside the Soft-RoCE VM (utils/rdma-vm)
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

test-rdma: all
	./utils/rdma-vm --check && ./utils/rdma-vm tests/rdma/run.sh

test: all
	$(MAKE) -C src unit
	./runtest
	$(MAKE) test-rdma

clean:
	$(MAKE) -C src clean
