import Foundation
import ChorusDSP
import ChorusSpeech
import Testing
import ChorusGeneration
@testable import ChorusCosyVoice

@Suite struct SeededRandomTests {
    @Test func matchesSplitMix64AndThePythonReference() {
        var random = SeededRandom(seed: 0)
        #expect([random.next(), random.next(), random.next()] == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
        var other = SeededRandom(seed: 42)
        #expect(other.uniform() == 0.7415648787718233)
        #expect(other.uniform() == 0.1599103928769201)
        #expect(other.categorical([0.1, 0.2, 0.7]) == 1)
        var normal = SeededRandom(seed: 5)
        #expect(normal.gaussians(3) == [Float(0.014334745996352224), Float(-0.9888470868675538), Float(0.5906209568869251)])
    }
}

@Suite struct LanguageModelTests {
    /// Logits whose softmax is `probabilities`.
    func logits(_ probabilities: [Double]) -> [Float] { probabilities.map { Float(log($0)) } }

    @Test func nucleusKeepsTokensUntilTopPOrTopK() {
        // 0.5 then 0.25: the cumulative sum passes 0.8 only after the third token, so three are kept.
        let scores = logits([0.05, 0.5, 0.1, 0.25, 0.1])
        var seen = Set<Int>()
        var random = SeededRandom(seed: 1)
        for _ in 0..<400 {
            seen.insert(Sampling.upstream.draw(logits: scores, history: [], random: &random))
        }
        #expect(seen == [1, 3, 2])
        var capped = Set<Int>()
        let topTwo = Sampling.repetitionAware(topP: 0.8, topK: 2, window: 10, tauR: 0.1)
        for _ in 0..<400 {
            capped.insert(topTwo.draw(logits: scores, history: [], random: &random))
        }
        #expect(capped == [1, 3])
    }

    /// upstream ras_sampling after "fix ras" (February 2026): when the nucleus draw repeats a token of the
    /// last 10, its score is set to -inf and the token drawn again from every other token's probability.
    @Test func rasRedrawsWithTheRepeatedTokenAtProbabilityZero() {
        // The nucleus holds only token 0 (0.9 >= 0.8 after one token).
        let probabilities = [0.9, 0.05, 0.05]
        let ras = Sampling.upstream
        var random = SeededRandom(seed: 9)
        var expected = SeededRandom(seed: 9)

        // Token 0 not among the last 10: the nucleus draw stands, one uniform used.
        let fresh = ras.draw(logits: logits(probabilities), history: [0] + [Int](repeating: 1, count: 10), random: &random)
        _ = expected.uniform()
        #expect(fresh == 0)
        #expect(random.next() == expected.next())

        // Token 0 once in the window (>= 10 x 0.1): a second draw, over tokens 1 and 2 only; before the fix
        // it was over all three, and 0 came back nine times in ten.
        var redrawn = Set<Int>()
        for _ in 0..<200 {
            var probe = random
            let token = ras.draw(logits: logits(probabilities), history: [2, 2, 0], random: &random)
            _ = probe.uniform()
            #expect(token == probe.categorical([0, 0.05, 0.05]))
            #expect(random.next() == probe.next())
            redrawn.insert(token)
        }
        #expect(redrawn == [1, 2])
    }

    /// upstream sampling_ids (ace7c47): before min_len only id 6561 is masked; a draw of end of speech or of
    /// another stop id stands and ends the utterance, however short.
    @Test func samplingIdsMasksOnlyId6561BeforeMinLen() throws {
        // 6561 holds half the mass and another stop id a fifth; speech tokens share the rest.
        var probabilities = [Double](repeating: 0.3 / 100, count: 6761)
        for token in 100..<LanguageModel.speechTokenCount { probabilities[token] = 0 }
        probabilities[LanguageModel.startOfSequence] = 0.5
        probabilities[6700] = 0.2
        let scores = probabilities.map { $0 > 0 ? Float(log($0)) : -Float.infinity }
        var sampler = TokenSampler(Sampling.upstream.steps(minimumLength: 20), vocabularySize: scores.count,
                                   random: SeededRandom(seed: 3))
        var drawn: [Int] = []
        for _ in 0..<20 {
            var values = scores
            drawn.append(try values.withUnsafeMutableBufferPointer { try sampler.next($0) })
        }
        #expect(!drawn.contains(LanguageModel.startOfSequence))
        // 6700 keeps 0.2 / 0.5 of what is left: 20 draws without it are 1 in 10^4.
        #expect(drawn.contains(6700))
        // From the minimum on, 6561 can be drawn too (0.5 of the mass: 20 draws without it are 1 in 10^6).
        var first = 0
        for _ in 0..<20 {
            var values = scores
            if try values.withUnsafeMutableBufferPointer({ try sampler.next($0) }) == LanguageModel.startOfSequence { first += 1 }
        }
        #expect(first > 0)
    }

    @Test func greedyAndTopK() {
        var random = SeededRandom(seed: 3)
        #expect(Sampling.greedy.draw(logits: logits([0.1, 0.7, 0.2]), history: [], random: &random) == 1)
        for _ in 0..<50 {
            #expect(Sampling.topK(2).draw(logits: logits([0.1, 0.5, 0.4]), history: [], random: &random) != 0)
        }
    }

    /// upstream's RAS in float64 the plain way (full softmax, stable sort, the repeated token zeroed before
    /// the full draw), as the Python reference draws.
    func float64Draw(_ logits: [Float], history: [Int], random: inout SeededRandom) -> Int {
        let top = Double(logits.max()!)
        let e = logits.map { exp(Double($0) - top) }
        let total = e.reduce(0, +)
        let p = e.map { $0 / total }
        let order = p.indices.sorted { p[$0] != p[$1] ? p[$0] > p[$1] : $0 < $1 }
        var kept: [Int] = []
        var cumulative = 0.0
        for index in order where cumulative < 0.8 && kept.count < 25 {
            cumulative += p[index]
            kept.append(index)
        }
        let token = kept[random.categorical(kept.map { p[$0] })]
        guard history.suffix(10).contains(token) else { return token }
        var masked = p
        masked[token] = 0
        return random.categorical(masked)
    }

    @Test func drawsAsAFloat64SoftmaxDoes() {
        // 6761 logits shaped like the test decoder's (a few dozen favoured tokens), 60 steps: the
        // float32 exponentials never change a draw against float64.
        var noise = SeededRandom(seed: 77)
        let favoured = (0..<40).map { _ in Int(noise.next() % 6761) }
        var random = SeededRandom(seed: 5), reference = SeededRandom(seed: 5)
        var history: [Int] = []
        var disagreements = 0
        for _ in 0..<60 {
            var logits = noise.gaussians(6761).map { $0 * 0.5 }
            for (rank, token) in favoured.enumerated() { logits[token] += 6 + Float(rank % 7) * 0.3 }
            let token = Sampling.upstream.draw(logits: logits, history: history, random: &random)
            let expected = float64Draw(logits, history: history, random: &reference)
            if token != expected { disagreements += 1 }
            random = reference
            history.append(expected)
        }
        #expect(disagreements == 0)
    }

    @Test func sampledProbabilitiesSumToOne() {
        // A draw over the whole distribution picks each token about as often as its probability.
        let probabilities = [0.5, 0.3, 0.2] + [Double](repeating: 0, count: 20)
        let scores = probabilities.map { $0 > 0 ? Float(log($0)) : -Float.infinity }
        var counts = [Int](repeating: 0, count: probabilities.count)
        var random = SeededRandom(seed: 4)
        for _ in 0..<20_000 { counts[Sampling.topK(23).draw(logits: scores, history: [], random: &random)] += 1 }
        #expect(counts[3...].allSatisfy { $0 == 0 })
        for token in 0..<3 { #expect(abs(Double(counts[token]) / 20_000 - probabilities[token]) < 0.015) }
    }

    @Test func lengthLimitsFollowTheTextLength() {
        #expect(LanguageModel.lengthLimits(textCount: 8) == 16...160)
    }

    @Test func silenceFilterCutsRunsLongerThanFive() {
        let silent = 248
        let tokens = [7] + [Int](repeating: silent, count: 8) + [9, silent, 1, 2]
        #expect(SilenceFilter.filter(tokens) == [7] + [Int](repeating: silent, count: 5) + [9, silent, 1, 2])
    }
}

@Suite struct FlowMatchingTests {
    @Test func cosineScheduleRunsFromZeroToOne() {
        let t = FlowMatching.cosineSchedule()
        #expect(t.count == 11)
        #expect(t.first == 0)
        #expect(t.last == 1)
        #expect(abs(t[5] - Float(1 - cos(Double.pi / 4))) < 1e-7)
        // Small steps first, large steps last: the schedule is not linear.
        let steps = zip(t.dropFirst(), t).map { $0 - $1 }
        #expect(zip(steps.dropFirst(), steps).allSatisfy { $0 > $1 })
        #expect(abs(steps[0] - 0.0123117) < 1e-6)
    }

    @Test func guidanceExtrapolatesAwayFromTheUnconditionalVelocity() {
        let v = FlowMatching.guided(conditional: [1, 0, 2], unconditional: [0, 1, 2])
        #expect(v == [Float(1.7), Float(-0.7), Float(1.7) * 2 - Float(0.7) * 2])
    }

    @Test func melFramesSliceAndResample() {
        let mel = MelSpectrogram(frames: 4, values: (0..<(80 * 4)).map(Float.init))
        let tail = mel.frames(1..<3)
        #expect(tail.frames == 2)
        #expect(Array(tail.values.prefix(4)) == [1, 2, 5, 6])
        let slower = mel.resampled(to: 8)
        #expect(slower.frames == 8)
        #expect(Array(slower.values.prefix(8)) == [0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3])
    }

    @Test func noiseIsAFixedPrefix() {
        let noise = FlowNoise(seed: 0)
        let short = noise.prefix(3)
        let long = noise.prefix(5)
        #expect(short[0..<3] == long[0..<3])
        #expect(short[3..<6] == long[5..<8])
        var random = SeededRandom(seed: 0)
        let firstFrame = random.gaussians(80)
        #expect(short[0] == firstFrame[0] && short[3] == firstFrame[1] && short[6] == firstFrame[2])
    }
}

@Suite struct ChorusStreamingTests {
    @Test func hopStartsAt25RoundsThePromptAndDoublesTo100() {
        var schedule = TokenHopSchedule(promptTokens: 20)
        #expect(schedule.nextHop == 30)          // 25 + 5 to bring 20 prompt tokens to 25
        #expect(schedule.tokensNeeded == 33)     // plus 3 lookahead
        schedule.advance()
        #expect(schedule.offset == 30)
        #expect(schedule.nextHop == 50)
        #expect(schedule.tokensNeeded == 83)
        schedule.advance()
        #expect(schedule.nextHop == 100)
        schedule.advance()
        #expect(schedule.nextHop == 100)
        #expect(TokenHopSchedule(promptTokens: 50).nextHop == 25)
    }

    @Test func melFramesJoinInTime() {
        let a = MelSpectrogram(frames: 1, values: (0..<80).map(Float.init))
        let b = MelSpectrogram(frames: 2, values: (0..<160).map { Float($0) + 1000 })
        let joined = a.appending(b)
        #expect(joined.frames == 3)
        #expect(Array(joined.values.prefix(6)) == [0, 1000, 1001, 1, 1002, 1003])
        #expect(joined.frames(1..<3) == b)
    }
}

@Suite struct VocoderTests {
    @Test func istftTrimsTheCentrePaddingAndInvertsTheStft() {
        let signal: [Float] = (0..<480).map { (n: Int) -> Float in
            let x = Double(n)
            let slow: Double = sin(x * 0.05) * 0.5
            let fast: Double = cos(x * 0.31) * 0.2
            return Float(slow + fast)
        }
        let spectrum = Vocoder.sourceSpectrum(signal)
        #expect(spectrum.frames == 480 / 4 + 1)
        #expect(spectrum.values.count == 18 * spectrum.frames)
        let f = spectrum.frames
        let re = spectrum.values[0..<(9 * f)], im = spectrum.values[(9 * f)...]
        let magnitude: [Float] = zip(re, im).map { (a: Float, b: Float) -> Float in
            let power: Double = Double(a) * Double(a) + Double(b) * Double(b)
            return Float(power.squareRoot())
        }
        let phase: [Float] = zip(re, im).map { (a: Float, b: Float) -> Float in Float(atan2(Double(b), Double(a))) }
        let back = Vocoder.inverse(magnitude: magnitude, phase: phase, frames: f)
        // hop x (frames - 1): exactly the input length, with no n_fft / 2 left over at either end.
        #expect(back.count == signal.count)
        #expect(maxAbsDifference(back, signal) < 1e-5)
    }

    @Test func vectorSineAndCosineMatchLibm() {
        var worst = 0.0
        for step in -20_000...20_000 {
            let x = 20 * Float(step) / 20_000
            let (sine, cosine) = SIMD8<Float>(repeating: x).sineAndCosine()
            worst = max(worst, abs(Double(sine[5]) - sin(Double(x))), abs(Double(cosine[5]) - cos(Double(x))))
        }
        #expect(worst < 5e-7)
    }

    @Test func magnitudeIsClippedAt100() {
        let frames = 9
        let big = [Float](repeating: 1000, count: 9 * frames)
        let zero = [Float](repeating: 0, count: 9 * frames)
        let limited = Vocoder.inverse(magnitude: big, phase: zero, frames: frames)
        let hundred = Vocoder.inverse(magnitude: [Float](repeating: 100, count: 9 * frames), phase: zero, frames: frames)
        #expect(limited == hundred)
    }
}
