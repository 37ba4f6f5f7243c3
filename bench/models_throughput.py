#!/usr/bin/env python3
"""`chorus models pull` beside curl on one file from a local fake hub (no rate cap): wall time and MB/s
for each, interleaved rounds, and chorus/curl. chorus also hashes (SHA-256) and fsyncs; curl only writes,
so `curl` followed by `sha256sum` of the file (what a user does to get a file they have checked) is
timed too, as a second ratio. Prints the load average before and after, for the README's row.

    python3 bench/models_throughput.py [--size-mb 500] [--rounds 3] [--chorus .build/release/chorus]
                                       [--baseline OTHER_CHORUS]

`--baseline` pulls with a second build too (another branch's, say) in the same rounds, for a before/after.
"""
import argparse, os, random, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "piper:en_US-bench-medium"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mb", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chorus", default=os.path.join(HERE, "..", ".build", "release", "chorus"))
    parser.add_argument("--baseline", help="a second chorus binary timed in the same rounds")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="chorus-throughput-")
    model = os.path.join(work, "voice.onnx")
    with open(model, "wb") as f:
        chunk = random.Random(1).randbytes(1 << 20)
        for i in range(args.size_mb):
            f.write(chunk[i % 7:] + chunk[:i % 7])
    hub = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_hub.py"), "--model", model], stdout=subprocess.PIPE, text=True)
    port = int(hub.stdout.readline())
    env = dict(os.environ, HF_ENDPOINT=f"http://127.0.0.1:{port}", CHORUS_MODELS=os.path.join(work, "models"),
               CHORUS_DOWNLOADS=os.path.join(work, "downloads"), HF_HUB_CACHE=os.path.join(work, "hf"))
    url = f"http://127.0.0.1:{port}/rhasspy/piper-voices/resolve/main/en/en_US/bench/medium/en_US-bench-medium.onnx"
    times = {"curl": [], "curl+sha256sum": [], "chorus": []}
    pullers = [("chorus", args.chorus)]
    if args.baseline:
        times["baseline"] = []
        pullers.append(("baseline", args.baseline))
    print("load average before: %.2f %.2f %.2f" % os.getloadavg())
    try:
        for _ in range(args.rounds):
            target = os.path.join(work, "curl.onnx")
            began = time.monotonic()
            subprocess.run(["curl", "-sSfL", "-o", target, url], check=True)
            times["curl"].append(time.monotonic() - began)
            os.remove(target)
            began = time.monotonic()
            subprocess.run(["curl", "-sSfL", "-o", target, url], check=True)
            subprocess.run(["sha256sum", target], check=True, stdout=subprocess.DEVNULL)
            times["curl+sha256sum"].append(time.monotonic() - began)
            os.remove(target)
            for tool, binary in pullers:
                subprocess.run([binary, "models", "rm", NAME], env=env, check=True, stdout=subprocess.DEVNULL)
                began = time.monotonic()
                subprocess.run([binary, "models", "pull", NAME], env=env, check=True, stderr=subprocess.DEVNULL)
                times[tool].append(time.monotonic() - began)
        mb = args.size_mb * 1.048576
        for tool, values in times.items():
            print(f"{tool:14s} min {min(values):6.2f} s  median {statistics.median(values):6.2f} s  "
                  f"{mb / min(values):7.1f} MB/s (best)")
        print(f"chorus/curl wall time (min): {min(times['chorus']) / min(times['curl']):.3f}")
        print(f"chorus/(curl+sha256sum) wall time (min): {min(times['chorus']) / min(times['curl+sha256sum']):.3f}")
        if args.baseline:
            print(f"chorus/baseline wall time (min): {min(times['chorus']) / min(times['baseline']):.3f}")
        print("load average after: %.2f %.2f %.2f" % os.getloadavg())
    finally:
        hub.terminate()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    sys.exit(main())
