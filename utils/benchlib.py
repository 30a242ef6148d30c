"""benchlib - helpers shared by the utils/bench-* wall-clock benchmarks.

On a small machine a load generator and the server it drives compete for
the same CPUs, so the server's throughput depends on how much CPU the
client happens to leave it, and a run-to-run swing of 20-40% is normal.
Two things make the figures trustworthy:

- CPU pinning: the server gets one CPU to itself and the load generator
  another (taskset), when the process may run on at least two. With the
  server alone on its core, a client that is cheaper or dearer per request
  no longer moves the server's throughput.
- Repeats: each configuration is measured several times, alternating the
  two sides, and the median ratio is reported with its min-max range, so
  the remaining noise is visible next to the figure.

Imported by the scripts in this directory (their own directory is on
sys.path when they run); nothing here starts servers by itself.
"""
import os
import shutil
import statistics


class Pinning:
    """Which CPU the server and the client run on, or no pinning at all.

    server_cmd()/client_cmd() prefix a command line with taskset when
    pinning is on and return it unchanged otherwise."""

    def __init__(self, enabled=True):
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        self.taskset = shutil.which("taskset")
        self.enabled = enabled and len(cpus) >= 2 and self.taskset is not None
        if self.enabled:
            # The last CPU for the server, the first for the client: CPU 0
            # usually takes more interrupts, which the client minds less.
            self.server_cpu, self.client_cpu = cpus[-1], cpus[0]
        self.why_not = ("disabled by --no-pin" if not enabled else
                        "taskset not found" if self.taskset is None else
                        f"only {len(cpus)} CPU(s) available")

    def describe(self):
        if self.enabled:
            return (f"pinned with taskset: server on CPU {self.server_cpu}, "
                    f"benchmark client on CPU {self.client_cpu}")
        return f"not pinned ({self.why_not})"

    def _wrap(self, cpu, cmd):
        if not self.enabled:
            return list(cmd)
        return [self.taskset, "-c", str(cpu)] + list(cmd)

    def server_cmd(self, cmd):
        return self._wrap(self.server_cpu if self.enabled else None, cmd)

    def client_cmd(self, cmd):
        return self._wrap(self.client_cpu if self.enabled else None, cmd)


def parse_csv_rps(out):
    """{test: requests per second} from redis-benchmark/valkey-benchmark
    --csv output ("test","rps",...; the header line is skipped)."""
    rps = {}
    for line in out.splitlines():
        fields = [f.strip('"') for f in line.split(",")]
        if len(fields) >= 2 and fields[0] != "test":
            try:
                rps[fields[0]] = float(fields[1])
            except ValueError:
                pass
    return rps


def spread(values):
    """(median, min, max) of a non-empty list of numbers."""
    return statistics.median(values), min(values), max(values)


def fmt_ratio(ratios):
    """'1.02 [0.97-1.05]': median ratio and the range over the repeats."""
    med, lo, hi = spread(ratios)
    return f"{med:>5.2f} [{lo:.2f}-{hi:.2f}]"
