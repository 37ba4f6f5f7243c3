#!/usr/bin/env python3
"""Usage: python3 bench/session_create_bench.py kokoro|piper ROUNDS
Session creation for Kokoro int8 / Piper: optimisation levels and ORT's optimised-model cache (ONNX and ORT
format), wall and CPU time per creation, each in a fresh process (as chorus speak pays it), interleaved."""
import sys, os, time, subprocess, json, statistics, resource
M = os.path.expanduser('~/.cache/chorus/models')
engine, rounds = sys.argv[1], int(sys.argv[2])
path = {'piper': M + '/piper/en_US-joe-medium.onnx', 'kokoro': M + '/kokoro/kokoro-v1.0.int8.onnx'}[engine]
PY = os.environ.get('PEER_PYTHON', '/tmp/chorus-peer-bench/bin/python')  # bench/peer_bench.py's venv (onnxruntime 1.32.0)
CHILD = r'''
import sys, time, onnxruntime as ort
path, level, save, fmt, threads = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
L = {'all': ort.GraphOptimizationLevel.ORT_ENABLE_ALL, 'ext': ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
     'basic': ort.GraphOptimizationLevel.ORT_ENABLE_BASIC, 'off': ort.GraphOptimizationLevel.ORT_DISABLE_ALL}[level]
o = ort.SessionOptions(); o.graph_optimization_level = L; o.enable_mem_pattern = False; o.intra_op_num_threads = threads
if save != '-': o.optimized_model_filepath = save
if fmt == 'ort': o.add_session_config_entry('session.load_model_format', 'ORT')
w, c = time.perf_counter(), time.process_time()
s = ort.InferenceSession(path, o, providers=['CPUExecutionProvider'])
print(time.perf_counter() - w, time.process_time() - c)
'''
def create(p, level, save='-', fmt='onnx'):
    out = subprocess.run([PY, '-c', CHILD, p, level, save, fmt, '1'], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])
cache = {lv: f'/tmp/chorus-create-{engine}.{lv}.onnx' for lv in ['all', 'ext', 'basic']}
ortcache = f'/tmp/chorus-create-{engine}.all.ort'
for lv, p in cache.items(): print('save', lv, create(path, lv, p))
print('save ort', create(path, 'all', ortcache))
rows = {'orig all': (path, 'all', 'onnx'), 'orig ext': (path, 'ext', 'onnx'), 'orig basic': (path, 'basic', 'onnx'),
        'orig off': (path, 'off', 'onnx'), 'cache all, load off': (cache['all'], 'off', 'onnx'),
        'cache ext, load all': (cache['ext'], 'all', 'onnx'), 'cache ext, load off': (cache['ext'], 'off', 'onnx'),
        'cache basic, load all': (cache['basic'], 'all', 'onnx'), 'ort all, load off': (ortcache, 'off', 'ort')}
wall = {k: [] for k in rows}; cpu = {k: [] for k in rows}
for r in range(rounds):
    for k, (p, lv, fmt) in rows.items():
        w, c = create(p, lv, '-', fmt); wall[k].append(w); cpu[k].append(c)
print(engine, 'load average', os.getloadavg(), rounds, 'rounds, fresh process each, 1 intra-op thread')
base = statistics.median(wall['orig all'])
for k in rows:
    print(f'{k:24} wall med {statistics.median(wall[k]):6.3f} min {min(wall[k]):6.3f}  cpu med {statistics.median(cpu[k]):6.3f}  ratio {statistics.median(wall[k])/base:.3f}')
