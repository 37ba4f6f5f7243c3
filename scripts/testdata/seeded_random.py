"""Chorus's SeededRandom (Sources/ChorusDSP/SeededRandom.swift) for the generators that pin a draw or a noise to
the stream the Swift side draws from:
  * next(): SplitMix64;
  * uniform(): the top 53 bits of the next output, times 2**-53, in [0, 1);
  * categorical(weights): uniform() times the weights' float64 sum in index order, the first index whose
    running sum exceeds it;
  * gaussians(count): Box-Muller on pairs, u1 = 1 - uniform() in (0, 1], u2 = uniform(),
    sqrt(-2 ln u1) cos(2 pi u2) then sqrt(-2 ln u1) sin(2 pi u2).
"""
import math

import numpy as np

MASK64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next() >> 11) * (1.0 / (1 << 53))

    def categorical(self, weights):
        return self.placed(weights)[0]

    def placed(self, weights):
        """categorical's draw with where it fell: (index, target, running sum before the index, after it, total),
        for a generator that measures how far the draw lies from the boundaries beside it."""
        total = 0.0
        for w in weights:
            total += w
        r = self.uniform() * total
        running = before = 0.0
        for i, w in enumerate(weights):
            before = running
            running += w
            if r < running:
                return i, r, before, running, total
        return len(weights) - 1, r, before, running, total

    def gaussians(self, count):
        out = np.empty(count, np.float64)
        for i in range(0, count, 2):
            u1, u2 = 1.0 - self.uniform(), self.uniform()
            radius = math.sqrt(-2.0 * math.log(u1))
            out[i] = radius * math.cos(2.0 * math.pi * u2)
            if i + 1 < count:
                out[i + 1] = radius * math.sin(2.0 * math.pi * u2)
        return out
