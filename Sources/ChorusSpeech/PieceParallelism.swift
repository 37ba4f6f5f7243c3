import Foundation

/// How an engine splits the machine between the pieces of one text: how many pieces' model calls run
/// at once, and how many threads each call's operators use.
///
/// Measured with `bench/piece_split_bench.py` (Piper, onnxruntime 1.32, 2 cores shared with builds,
/// load average 13-15): one call at a time with two threads took 1.6-1.8x the time of two calls at
/// once with one thread each (a VITS graph is many small operators, between which threads wait for
/// each other, and spinning threads lose their core to other processes); two calls on one session
/// were as fast as on two sessions, so the calls share the engine's one session; sentences batched
/// along Piper's batch axis took 1.1x the time of concurrent calls (and pad the shorter ones), so
/// pieces are not batched. A call that runs alone (the first piece of a text, a lone sentence) gets
/// `threadsAlone` threads, on a session of its own when that is more than `threadsPerRun` (see
/// `PieceSessions` in ChorusONNX): on one thread it left the other core idle and delayed the first
/// audio.
public struct PieceParallelism: Sendable, Equatable, CustomStringConvertible {
    /// Model calls of one engine running at once.
    public var inFlight: Int
    /// Intra-op threads of the engine's session, which the calls in flight share.
    public var threadsPerRun: Int

    /// Whether a call that runs alone gets `threadsAlone()` threads, on a session of its own when that is
    /// more than `threadsPerRun`. False for an engine loaded for one request whose calls all run side by
    /// side (`forOnly(_:pieces:)`), which would never use that session.
    public var callsAloneGetEveryThread = true

    public init(inFlight: Int, threadsPerRun: Int) {
        precondition(inFlight > 0 && threadsPerRun > 0, "at least one call in flight, with at least one thread")
        self.inFlight = inFlight
        self.threadsPerRun = threadsPerRun
    }

    /// This split for an engine that serves `request` and nothing else, cut into `pieces` pieces of
    /// text (`chorus speak` writing a file): when the whole text comes first and there are several
    /// pieces, every call runs beside another from the first (see `ParallelPieces`), so no call runs
    /// alone and the session for calls alone is not made. `chorus speak -o` of bench/peer_text.txt's 20
    /// sentences (release builds, most memory held, `/usr/bin/time`): Piper 438-456 MB before, 348-351 MB
    /// with this; Kokoro 1333 MB before, 1133 MB.
    public func forOnly(_ request: SynthesisRequest, pieces: Int) -> PieceParallelism {
        var split = self
        if request.priority == .wholeText, pieces > 1 { split.callsAloneGetEveryThread = false }
        return split
    }

    /// How the model calls of one request run.
    public enum Schedule: Sendable, Equatable {
        /// One at a time, each alone with `threadsAlone()` threads (fewer while other requests of the
        /// engine run), each started when the one before it ends: speech heard as it is made.
        case oneAfterAnother
        /// Up to `inFlight` at once on `threadsPerRun` threads each, the first alone when `firstAlone`.
        case sideBySide(firstAlone: Bool)
    }

    /// The schedule for a request with `priority`. The first audio: one call after another, each alone, so
    /// that every piece is made as fast as the machine allows and is ready before the audio before it has
    /// played out (with `PieceRamp`'s growing pieces); side by side, each of Kokoro's calls took 1.8 times
    /// as long on one thread as alone on two, and the second piece came late (StreamingBench on 2 cores,
    /// 2x1: first audio 1332 ms and gaps of up to 484 ms; one after another, 1x2: 1043 ms, no gap). The
    /// whole text: side by side from the first call, which finishes the text soonest (two Kokoro calls
    /// of one thread each made a pair of pieces in 9.84 s, one call of two threads 5.5 s per piece).
    /// Only 2 cores were measured.
    public func schedule(for priority: SynthesisRequest.Priority) -> Schedule {
        priority == .firstAudio ? .oneAfterAnother : .sideBySide(firstAlone: false)
    }

    /// Calls an engine starts ahead of its consumer: one more than it runs at once (its `RunLimit`), so
    /// when a call ends while the one ahead of it still runs, the next is already waiting for the freed
    /// core instead of being started only when the consumer takes the earlier call's audio.
    public var callsAhead: Int { inFlight == 1 ? 1 : inFlight + 1 }

    /// Threads of a call that runs alone: the threads of every call in flight, as many as the cores
    /// take (2x1 on 2 cores: 2; 2x2 on 2 cores: 2, the session's own), never fewer than `threadsPerRun`.
    public func threadsAlone(cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Int {
        guard callsAloneGetEveryThread else { return threadsPerRun }
        return max(threadsPerRun, min(max(1, cores), inFlight * threadsPerRun))
    }

    /// Whether the session's threads may spin while they wait: not when several calls in flight share
    /// several threads each, since a spinning thread would hold a core the other call needs; nil leaves
    /// the runtime's default.
    public var allowsSpinning: Bool? { inFlight > 1 && threadsPerRun > 1 ? false : nil }

    /// The environment variable that overrides the split: `IN_FLIGHTxTHREADS`, e.g. `2x1`; `1x2` is one
    /// call at a time with two threads, as before pieces ran in parallel.
    public static let environmentVariable = "CHORUS_PIECES"

    /// The split for a machine with `cores` cores: up to four pieces in flight, the cores shared out
    /// among them (2 cores: 2 x 1; 8 cores: 4 x 2). Only 2 cores were measured; past that it is a
    /// guess that keeps each call's activations (tens of MB) from multiplying, so say so when tuning.
    public static func forCores(_ cores: Int) -> PieceParallelism {
        let cores = max(1, cores)
        let inFlight = min(cores, 4)
        return PieceParallelism(inFlight: inFlight, threadsPerRun: max(1, cores / inFlight))
    }

    /// The split `CHORUS_PIECES` asks for, else the one for this machine's cores.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment,
                               cores: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> PieceParallelism {
        guard let value = environment[environmentVariable], !value.isEmpty else { return forCores(cores) }
        guard let parsed = PieceParallelism(parsing: value) else {
            throw SpeechError.invalidSetting(name: environmentVariable, value: value,
                                             expected: "IN_FLIGHTxTHREADS with each from 1 to 64, such as 2x1")
        }
        return parsed
    }

    /// `IN_FLIGHTxTHREADS` ("2x1"); nil for anything else or a count outside 1...64.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let inFlight = Int(parts[0]), let threads = Int(parts[1]),
              (1...64).contains(inFlight), (1...64).contains(threads) else { return nil }
        self.init(inFlight: inFlight, threadsPerRun: threads)
    }

    public var description: String { "\(inFlight)x\(threadsPerRun)" }
}
