#!/usr/bin/env python3
"""CPU per operation by thread, for a one-round EndToEndBenchmark run recorded by `perf record -a`.

A run of `--rounds 1` times its first contender, then its second (round 1 is "peer first"), each
for `--duration`, after both warm up for `--warmup`. This script finds the benchmark's load
threads (e2e-load-*) in `perf script` output, takes the middle 80% of each timed window, and
prints, per contender, the CPU each thread name spent per operation (every CPU of the machine,
idle included as "swapper"), and for the heaviest ones how it splits between user code and the
system calls it was in. docs/replicas.md shows the use:

    perf record -a -F 499 -g -o /tmp/perf.data -- java -cp benchmarks/target/benchmarks.jar \\
        io.shardwise.benchmarks.e2e.EndToEndBenchmark --duration 10s --warmup 3s --rounds 1 \\
        --scenario redis-replicas-set > /tmp/run.txt
    perf script -i /tmp/perf.data -F comm,pid,tid,time,ip,sym,dso > /tmp/perf.txt
    benchmarks/perf-split.py /tmp/perf.txt --warmup 3 --duration 10 --rates 63955,47508

--rates: the two contenders' operations per second, as the run printed them.
"""
import argparse
import collections
import re

HEADER = re.compile(r"(.+?)\s+(\d+)/(\d+)\s+([\d.]+):")


def read_samples(path):
    samples = []
    current = None
    with open(path, errors="replace") as f:
        for line in f:
            if line.strip() and not line[0].isspace():
                m = HEADER.match(line)
                if m:
                    current = (m.group(1).strip(), float(m.group(4)), [])
                    samples.append(current)
            elif line.strip() and current is not None:
                parts = line.strip().split(None, 1)
                if len(parts) == 2:
                    current[2].append(parts[1])
    return samples


def kind(frames):
    """The system call a sample was in ('softirq': loopback delivery to the reader, which the
    writer's CPU does), 'user', or 'kernel' for other kernel work."""
    for frame in frames:
        symbol = frame.split(" (")[0]
        for prefix in ("__x64_sys_", "__do_sys_", "ksys_", "do_"):
            if symbol.startswith(prefix) and symbol not in ("do_syscall_64", "do_idle"):
                return re.sub(r"\.(part|isra|constprop)\.\d+$", "", symbol[len(prefix):])
    if frames and "kallsyms" in frames[0]:
        return "kernel"
    return "user"


def group(comm):
    return "e2e-load-*" if comm.startswith("e2e-load") else comm


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("script", help="perf script output (-F comm,pid,tid,time,ip,sym,dso)")
    parser.add_argument("--warmup", type=float, required=True, help="--warmup of the run, seconds")
    parser.add_argument("--duration", type=float, required=True, help="--duration of the run, seconds")
    parser.add_argument("--rates", required=True, help="ops/s of the first and second contender")
    parser.add_argument("--hz", type=float, default=499, help="perf record -F (default 499)")
    args = parser.parse_args()
    rates = [float(r) for r in args.rates.split(",")]
    samples = read_samples(args.script)
    load = [s[1] for s in samples if s[0].startswith("e2e-load")]
    if not load:
        raise SystemExit("no e2e-load threads in " + args.script)
    start = min(load) + 2 * args.warmup
    sample_us = 1e6 / args.hz
    for i, rate in enumerate(rates):
        a = start + i * args.duration + 0.1 * args.duration
        b = start + (i + 1) * args.duration - 0.1 * args.duration
        window = [s for s in samples if a <= s[1] < b]
        per_op = sample_us / ((b - a) * rate)
        by_thread = collections.Counter(group(s[0]) for s in window)
        busy = sum(n for t, n in by_thread.items() if t != "swapper")
        print(f"contender {i + 1} ({rate:,.0f} ops/s): {busy * per_op:.2f} µs of CPU per op busy, "
              f"{by_thread['swapper'] * per_op:.2f} idle")
        for thread, n in by_thread.most_common(6):
            if thread == "swapper":
                continue
            kinds = collections.Counter(kind(s[2]) for s in window if group(s[0]) == thread)
            split = ", ".join(f"{k} {v * per_op:.2f}" for k, v in kinds.most_common(4))
            print(f"  {thread:<18} {n * per_op:6.2f}  ({split})")


if __name__ == "__main__":
    main()
