import ArgumentParser
import ChorusAudio
import ChorusDSP
import ChorusFiles
import ChorusModels
import Foundation

extension FeatureKind: ExpressibleByArgument {}

/// `chorus features`: a model's input features of a WAV file, written as .npy.
struct FeaturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "features",
        abstract: "Compute a model's input features of a WAV file and write them as .npy (frames x features).",
        discussion: "Any input rate works: the audio is mixed to mono and resampled to the extractor's rate. "
            + "Kinds: " + FeatureKind.allCases.map { "\($0.rawValue) (\($0.summary))" }.joined(separator: "; ") + "."
    )

    @Option(help: "The feature kind: \(FeatureKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var kind: FeatureKind?

    @Flag(help: "List the feature kinds and exit.")
    var list = false

    @Argument(help: "The input WAV file.")
    var input: String?

    @Option(name: .shortAndLong, help: "Where to write the .npy file.")
    var output: String?

    @Flag(help: "Replace the output file even when it is read-only.")
    var force = false

    func run() throws {
        if list || kind == nil {
            for kind in FeatureKind.allCases {
                print("\(kind.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0))\(kind.summary)")
            }
            if list { return }
            throw ValidationError("Choose a kind with --kind (listed above).")
        }
        guard let kind, let input else { throw ValidationError("Give the input WAV file.") }
        guard let output else { throw ValidationError("Give the output file with -o OUT.npy.") }
        StagedFile.cleansUpOnSignals()
        let destination = URL(fileURLWithPath: output)
        let policy = OutputTarget.Policy(inputs: [URL(fileURLWithPath: input)], replacesReadOnly: force)
        _ = try OutputTarget.inspect(destination, policy: policy)  // before the work, not after it
        let extractor = kind.extractor
        let (samples, rate) = try WAVFile.readMono(contentsOf: URL(fileURLWithPath: input))
        if let bad = samples.firstIndex(where: { !$0.isFinite }) {
            throw ValidationError("Audio sample \(bad) of \(input) is not a finite number (NaN or infinity); "
                                  + "the audio is corrupt, so decode or record it again.")
        }
        let audio = try Resampler.resample(samples, from: rate, to: extractor.sampleRate)
        let features = extractor(audio)
        let npy = try NPYFile(shape: [features.rows, features.columns], values: features.values)
        try StagedFile.write(to: destination, policy: policy) { staged in
            do {
                let handle = try staged.create(contents: npy.encoded())
                try handle.close()
            } catch {
                throw ValidationError("Cannot write \(output): \(AudioFileError.reason(for: error)).")
            }
        }
        let note = rate == extractor.sampleRate ? "" : " (resampled from \(rate) Hz)"
        FileHandle.standardError.write(Data(
            "\(kind.rawValue): \(features.rows) frames x \(features.columns) features at \(extractor.sampleRate) Hz\(note) -> \(output)\n".utf8))
    }
}
