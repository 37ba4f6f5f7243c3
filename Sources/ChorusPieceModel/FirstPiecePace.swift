import Foundation

/// How long the first piece of a text heard as it is made may be for its audio to be ready within
/// `within` seconds of model time, learnt from the calls the model has run alone on this machine.
///
/// A call's time grows with its text: `seconds = overhead + perCharacter * characters`, both fitted by
/// least squares to the most recent calls (proportional to the text when the calls are too alike in
/// length to tell the two apart). Until a call has run, the first piece is at most `startingLength`
/// characters. A fast machine so lets the first sentence be spoken whole, where 2 cores need it cut at a
/// clause or between words: on those, a Kokoro call took 0.73 s for 8 phoneme ids, 0.78 s for 16, 1.02 s
/// for 24, 1.95 s for 48 and 5.6 s for 128 (python onnxruntime 1.32, the int8 model, 2 threads, idle), and
/// a whole first sentence of 38 characters reached the client after 1.8 s (bench/stream_first_byte.py).
public final class FirstPiecePace: @unchecked Sendable {
    /// Seconds of model time the first piece may take.
    public let within: Double
    /// The longest first piece, in characters, before any call has been timed.
    public let startingLength: Int
    /// The shortest first piece, in characters, however slow the machine: a word or two alone would
    /// sound like a stumble.
    public let shortestLength: Int
    /// Calls kept for the fit.
    public static let rememberedCalls = 16

    private let lock = NSLock()
    private var calls: [(characters: Double, seconds: Double)] = []

    public init(within: Double, startingLength: Int, shortestLength: Int = 16) {
        precondition(within > 0 && shortestLength > 0 && startingLength >= shortestLength,
                     "a positive time, and 0 < shortestLength <= startingLength")
        self.within = within
        self.startingLength = startingLength
        self.shortestLength = shortestLength
    }

    /// Notes a call that ran alone on `characters` of text in `seconds`.
    public func record(characters: Int, seconds: Double) {
        guard characters > 0, seconds.isFinite, seconds > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        calls.append((Double(characters), seconds))
        if calls.count > Self.rememberedCalls { calls.removeFirst(calls.count - Self.rememberedCalls) }
    }

    /// The longest first piece, in characters, that the calls so far say is ready within `within`, and
    /// never more than `longest`.
    public func firstLength(longest: Int) -> Int {
        lock.lock()
        let calls = self.calls
        lock.unlock()
        guard let (overhead, perCharacter) = Self.fit(calls) else { return min(startingLength, longest) }
        let characters = (within - overhead) / perCharacter
        guard characters.isFinite else { return min(startingLength, longest) }
        return min(longest, max(shortestLength, Int(characters.rounded(.down))))
    }

    /// `seconds = overhead + perCharacter * characters` fitted to `calls`; nil with none.
    static func fit(_ calls: [(characters: Double, seconds: Double)]) -> (overhead: Double, perCharacter: Double)? {
        guard !calls.isEmpty else { return nil }
        let count = Double(calls.count)
        let meanCharacters = calls.reduce(0) { $0 + $1.characters } / count
        let meanSeconds = calls.reduce(0) { $0 + $1.seconds } / count
        var spread = 0.0, covariance = 0.0
        for call in calls {
            spread += (call.characters - meanCharacters) * (call.characters - meanCharacters)
            covariance += (call.characters - meanCharacters) * (call.seconds - meanSeconds)
        }
        // Lengths within a fifth of each other cannot separate the overhead from the rate.
        if spread > 0.04 * meanCharacters * meanCharacters * count {
            let perCharacter = covariance / spread
            let overhead = meanSeconds - perCharacter * meanCharacters
            if perCharacter > 0, overhead >= 0 { return (overhead, perCharacter) }
        }
        return (0, meanSeconds / meanCharacters)
    }
}
