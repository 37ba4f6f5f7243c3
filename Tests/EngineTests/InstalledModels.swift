import Foundation
import ChorusKokoro
import ChorusModels
import ChorusPiper
import Testing

/// Whether `scripts/setup.sh` has installed an engine's default model; tests on real models skip
/// with this reason otherwise (CI installs them, so there they run).
enum InstalledModels {
    static func installed(_ engine: String) -> Bool {
        FileManager.default.fileExists(atPath: ModelStore.current.folder(named: engine).appendingPathComponent(".complete").path)
    }

    static let kokoro = installed("kokoro")
    static let piper = installed("piper")
    static let reason: Comment = "model not installed in $CHORUS_MODELS; run scripts/setup.sh"
}

/// Root mean square of a signal, to tell speech from silence.
func rms(_ samples: [Float]) -> Float {
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
}

/// The installed models are what their manifests record (sizes; hashing the large files is left to `chorus models`).
@Suite struct InstalledManifestTests {
    @Test(.enabled(if: InstalledModels.kokoro, InstalledModels.reason))
    func kokoroMatchesItsManifest() {
        let check = KokoroSynthesizer.manifest.check(folder: ModelStore.current.folder(for: KokoroSynthesizer.manifest))
        #expect(check.isComplete, "\(check)")
        #expect(check.missingOptional.isEmpty)
    }

    @Test(.enabled(if: InstalledModels.piper, InstalledModels.reason))
    func piperMatchesItsManifest() {
        let check = PiperSynthesizer.manifest.check(folder: ModelStore.current.folder(for: PiperSynthesizer.manifest))
        #expect(check.isComplete, "\(check)")
        #expect(check.missingOptional.isEmpty)
    }
}
