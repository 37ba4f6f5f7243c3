"""What every real-size bench measures of a process, so the engines' figures mean the same thing.

`measured_run` runs a command to its end and gives its wall time, its peak resident memory (the kernel's VmHWM,
read while it runs, since it is gone at exit) and its output; `in_process_peak_mb` gives this process's own
VmHWM, for upstream's Python inference measured inside the bench's process (run each upstream case in a fresh
process, or the peak is that of everything before it). `ResidentSampler` records a process's VmRSS over time,
for memory at token 100 against token 1,000.
"""
import os
import subprocess
import threading
import time


def _status_mb(pid, field):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def in_process_peak_mb():
    return _status_mb(os.getpid(), "VmHWM")


class ResidentSampler:
    """Samples VmRSS and VmHWM of `pid` every `interval` seconds on a thread until `stop()`."""

    def __init__(self, pid, interval=0.05):
        self.pid, self.interval = pid, interval
        self.samples = []  # (seconds since start, VmRSS MB)
        self.peak_mb = 0.0
        self._done = threading.Event()
        self._start = time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._done.is_set():
            rss = _status_mb(self.pid, "VmRSS")
            peak = _status_mb(self.pid, "VmHWM")
            if rss is None:
                break
            self.samples.append((time.monotonic() - self._start, rss))
            self.peak_mb = max(self.peak_mb, peak or 0.0)
            self._done.wait(self.interval)

    def stop(self):
        self._done.set()
        self._thread.join()
        return self


def measured_run(command, env=None, stdin=None, timeout=None):
    """Runs `command` to its end: (seconds, peak RSS MB, completed process with stdout/stderr as text)."""
    started = time.monotonic()
    process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE if stdin is not None else None,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = ResidentSampler(process.pid)
    out, err = process.communicate(input=stdin, timeout=timeout)
    seconds = time.monotonic() - started
    sampler.stop()
    return seconds, sampler.peak_mb, subprocess.CompletedProcess(command, process.returncode, out, err)
