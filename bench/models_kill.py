#!/usr/bin/env python3
"""Kills `chorus models pull` at random points N times (SIGKILL, SIGTERM or SIGINT) against a local
fake hub, checking after each kill that the model folder is either absent or complete and verifying,
then pulls to the end and runs `chorus models verify`.

    python3 bench/models_kill.py [--runs 50] [--size-mb 64] [--rate-mb 32] [--chorus .build/release/chorus]
"""
import argparse, os, random, signal, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "piper:en_US-bench-medium"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--size-mb", type=int, default=64)
    parser.add_argument("--rate-mb", type=float, default=32, help="server cap per connection, MB/s")
    parser.add_argument("--chorus", default=os.path.join(HERE, "..", ".build", "release", "chorus"))
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="chorus-kill-")
    model = os.path.join(work, "voice.onnx")
    with open(model, "wb") as f:
        f.write(random.Random(1).randbytes(args.size_mb << 20))
    hub = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_hub.py"), "--model", model,
                            "--rate", str(args.rate_mb * 1e6)], stdout=subprocess.PIPE, text=True)
    port = int(hub.stdout.readline())
    env = dict(os.environ, HF_ENDPOINT=f"http://127.0.0.1:{port}", CHORUS_MODELS=os.path.join(work, "models"),
               CHORUS_DOWNLOADS=os.path.join(work, "downloads"), HF_HUB_CACHE=os.path.join(work, "hf"))
    env.pop("CHORUS_OFFLINE", None)
    env.pop("HF_HUB_OFFLINE", None)
    folder = os.path.join(work, "models", "piper-en_US-bench-medium")
    expected_seconds = args.size_mb * 1.048576 / args.rate_mb
    bad = 0
    finished_early = 0
    try:
        for run in range(args.runs):
            pull = subprocess.Popen([args.chorus, "models", "pull", NAME], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0, expected_seconds * 1.1))
            how = rng.choice([signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
            if pull.poll() is None:
                pull.send_signal(how)
            else:
                finished_early += 1
            pull.wait()
            state = check(args.chorus, env, folder)
            if state == "bad":
                bad += 1
            print(f"run {run + 1:2d}: {how.name:7s} folder {state}", flush=True)
            if state == "complete":
                subprocess.run([args.chorus, "models", "rm", NAME], env=env, check=True, stdout=subprocess.DEVNULL)
        final = subprocess.run([args.chorus, "models", "pull", NAME], env=env, capture_output=True, text=True)
        verify = subprocess.run([args.chorus, "models", "verify", NAME], env=env, capture_output=True, text=True)
        print(f"final pull exit {final.returncode}; verify exit {verify.returncode}: {verify.stdout.strip()}")
        print(f"{args.runs} kills, {bad} folders that did not verify, {finished_early} pulls finished before the kill")
        return 0 if bad == 0 and final.returncode == 0 and verify.returncode == 0 else 1
    finally:
        hub.terminate()
        subprocess.run(["rm", "-rf", work])


def check(chorus, env, folder):
    """'absent' when no folder was installed, 'complete' when it verifies, 'bad' otherwise."""
    if not os.path.exists(folder):
        return "absent"
    result = subprocess.run([chorus, "models", "verify", NAME], env=env, capture_output=True, text=True)
    return "complete" if result.returncode == 0 else "bad"


if __name__ == "__main__":
    sys.exit(main())
