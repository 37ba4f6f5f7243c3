#!/usr/bin/env python3
"""chorus speak "Hello." end to end with the optimised-model cache on and off (CHORUS_OPTIMIZED_MODELS=off),
interleaved, each a whole process; wall and CPU (user + system) time. The first run writes the entry.

    python3 bench/optimized_start.py .build/release/chorus piper|kokoro [rounds]
"""
import os, sys, time, resource, subprocess, statistics
chorus, engine, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 5
def run(env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN); t = time.perf_counter()
    r = subprocess.run([chorus, 'speak', '--engine', engine, 'Hello.', '-o', f'/tmp/chorus-start-{engine}.wav'], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t; after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert r.returncode == 0, r.stderr
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), r.stderr
on = dict(os.environ); off = dict(os.environ, CHORUS_OPTIMIZED_MODELS='off')
print('first (writes the entry) stderr:', run(on)[2].strip())
res = {'cache on': [], 'cache off': []}
for _ in range(rounds):
    for name, env in [('cache on', on), ('cache off', off)]: res[name].append(run(env)[:2])
print(engine, chorus, 'load average', os.getloadavg(), rounds, 'rounds')
for name, v in res.items():
    print(f'{name:10} wall med {statistics.median(w for w, _ in v):.3f} min {min(w for w, _ in v):.3f}  cpu med {statistics.median(c for _, c in v):.3f} min {min(c for _, c in v):.3f}')
