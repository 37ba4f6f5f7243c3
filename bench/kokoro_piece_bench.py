#!/usr/bin/env python3
"""Usage: python3 bench/kokoro_piece_bench.py [rounds]   (python of bench/peer_bench.py's venv: onnxruntime 1.32.0, kokoro-onnx 0.6.1)
Kokoro on 2 cores, plain onnxruntime: which pieces of the 20-sentence text (bench/peer_text.txt), and which
split of the cores, cost least. Pieces (phonemes from kokoro-onnx's espeak front end, so lengths are real):
sentences packed greedily to 300 characters (Chorus's KokoroSynthesizer.pieceLength), and sentences packed
in order into 4 or 6 pieces of about equal phoneme counts (4 is about kokoro-onnx's balanced 510-phoneme
batches). Modes: one call at a time with 2 intra-op threads (what kokoro-onnx does), and 2 calls at once on
one session with 1 thread each (Chorus's 2x1). Prints each run as it ends, then medians of wall time,
process CPU time and the seconds of audio made; rounds interleaved. On a loaded machine trust the CPU time.
Voice jf_alpha.

Defined but not timed (to keep a round short): a piece per sentence, kokoro-onnx's own split, the first
piece alone before the others.
"""
import os, sys, time, json, numpy as np, onnxruntime as ort
from concurrent.futures import ThreadPoolExecutor
from kokoro_onnx import Kokoro
from kokoro_onnx.chunker import split_phonemes
M = os.path.expanduser('~/.cache/chorus/models/kokoro')
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
lines = [l.strip() for l in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'peer_text.txt')) if l.strip()]
k = Kokoro(M + '/kokoro-v1.0.int8.onnx', M + '/voices_ja.npz', vocab_config=M + '/vocab.json')
voice = k.voices['jf_alpha']
ph = lambda t: " ".join(k.tokenizer.phonemize(t, 'en-us').split())
def pack(limit, measure):
    groups, cur = [], []
    for l in lines:
        if cur and measure(" ".join(cur + [l])) > limit:
            groups.append(" ".join(cur)); cur = []
        cur.append(l)
    groups.append(" ".join(cur))
    return [ph(g) for g in groups]
whole = ph(" ".join(lines))
total = len(whole)
pieces = {
    'sentence': [ph(l) for l in lines],
    '300 chars': pack(300, len),
    'kokoro-onnx 510': split_phonemes(whole, 510),
}
def balanced(n):
    # sentences packed in order into n pieces of about equal phoneme counts
    lens = [len(ph(l)) for l in lines]; target = sum(lens) / n
    groups, cur, acc = [], [], 0
    for l, m in zip(lines, lens):
        if cur and acc + m / 2 > target * (len(groups) + 1) and len(groups) < n - 1:
            groups.append(" ".join(cur)); cur = []
        cur.append(l); acc += m
    groups.append(" ".join(cur))
    return [ph(g) for g in groups]
for n in (4, 6): pieces[f'balanced {n}'] = balanced(n)
del pieces['sentence']; del pieces['kokoro-onnx 510']
for name, p in pieces.items(): print(f'{name:16} {len(p):2} pieces, phonemes {[len(x) for x in p]}')
inputs = {name: [k.tokenizer.tokenize(x) for x in p] for name, p in pieces.items()}
def session(threads):
    o = ort.SessionOptions(); o.intra_op_num_threads = threads; o.enable_mem_pattern = False
    return ort.InferenceSession(M + '/kokoro-v1.0.int8.onnx', o, providers=['CPUExecutionProvider'])
s1, s2 = session(1), session(2)
def call(s, t):
    return s.run(None, {'tokens': np.array([[0, *t, 0]], dtype=np.int64), 'style': voice[len(t) - 1],
                        'speed': np.array([1.0], dtype=np.float32)})[0].size
def in_turn(ids): return sum(call(s2, t) for t in ids)
def first_alone(ids):
    n = call(s1, ids[0])
    with ThreadPoolExecutor(2) as pool: return n + sum(pool.map(lambda t: call(s1, t), ids[1:]))
def all_at_once(ids):
    with ThreadPoolExecutor(2) as pool: return sum(pool.map(lambda t: call(s1, t), ids))
modes = {'1x2 in turn': in_turn, '2x1 from start': all_at_once}
call(s1, inputs['300 chars'][-1]); call(s2, inputs['300 chars'][-1])
wall, cpu, samples = {}, {}, {}
for r in range(rounds):
    for pn, ids in inputs.items():
        for mn, f in modes.items():
            w, c = time.perf_counter(), time.process_time()
            samples[pn, mn] = f(ids)
            wall.setdefault((pn, mn), []).append(time.perf_counter() - w); cpu.setdefault((pn, mn), []).append(time.process_time() - c)
            print(pn, mn, "wall", round(wall[pn, mn][-1], 2), "cpu", round(cpu[pn, mn][-1], 2), "load", os.getloadavg()[0], flush=True)
    print('round', r, 'load', os.getloadavg(), flush=True)
base = np.median(wall['300 chars', '2x1 from start'])
print(f'ort {ort.__version__}, {rounds} rounds; ratio = wall / (300 chars, 2x1 from start)')
for key in wall:
    print(f'{key[0]:16} {key[1]:16} wall med {np.median(wall[key]):7.2f} min {min(wall[key]):7.2f}  cpu med {np.median(cpu[key]):7.2f}  audio {samples[key]/24000:6.1f} s  ratio {np.median(wall[key])/base:.3f}')
