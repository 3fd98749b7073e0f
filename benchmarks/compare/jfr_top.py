#!/usr/bin/env python3
"""Where the ranks' threads were, summed over JFR recordings: the most frequent top frames of the execution
samples (threads running Java code) and of the native-method samples (threads inside a native call: for a
TCP rank, mostly the socket system calls), each with the three frames under it.

    python3 benchmarks/compare/jfr_top.py [--top 25] RECORDING.jfr...

Needs the JDK's `jfr` tool on PATH. The two kinds are sampled at different periods (settings=profile: 10 ms for
Java, 20 ms for native), so compare counts within a kind, not across.
"""
import argparse
import collections
import json
import subprocess


def frame(f):
    m = f["method"]
    return m["type"]["name"].split("/")[-1] + "." + m["name"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("recordings", nargs="+")
    args = ap.parse_args()
    stacks = {"ExecutionSample": collections.Counter(), "NativeMethodSample": collections.Counter()}
    for path in args.recordings:
        out = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ExecutionSample,jdk.NativeMethodSample",
                              "--stack-depth", "4", path], check=True, capture_output=True, text=True).stdout
        for event in json.loads(out)["recording"]["events"]:
            kind = event["type"].split(".")[-1]
            frames = (event["values"].get("stackTrace") or {}).get("frames") or []
            if frames:
                stacks[kind][" < ".join(frame(f) for f in frames[:4])] += 1
    for kind, counter in stacks.items():
        total = sum(counter.values())
        print(f"== {kind}: {total} samples in {len(args.recordings)} recordings")
        for stack, n in counter.most_common(args.top):
            print(f"{100 * n / max(1, total):5.1f}%  {n:6d}  {stack}")
        print()


if __name__ == "__main__":
    main()
