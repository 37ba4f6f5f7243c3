import ChorusModels
import Foundation
import Testing

@Suite struct ModelErrorTests {
    @Test func textsNameTheFileAndWhatToDo() {
        let missing = ModelError.missingFile(model: "Kokoro-82M int8", path: "/m/kokoro/vocab.json",
                                             remedy: ModelManifest.Installation.setupScript.remedy)
        #expect(missing.description
                == "The Kokoro-82M int8 model is missing: /m/kokoro/vocab.json not found. Run `scripts/setup.sh` to install it.")
        #expect(missing.localizedDescription == missing.description)
        #expect(missing.errorDescription == missing.description)

        let size = ModelError.sizeMismatch(model: "Piper", path: "/m/piper/a.onnx", expected: 10, actual: 4,
                                           remedy: "Run `scripts/setup.sh` to install it.")
        #expect(size.description == "/m/piper/a.onnx has 4 bytes where the Piper model has 10; it is damaged or "
                + "another version. Run `scripts/setup.sh` to install it.")
        let checksum = ModelError.checksumMismatch(model: "Piper", path: "/m/piper/a.onnx", expected: "aa", actual: "bb",
                                                   remedy: "Copy it again.")
        #expect(checksum.description.contains("SHA-256 bb where the Piper model has aa"))
        #expect(checksum.description.hasSuffix("Copy it again."))
    }

    @Test func aManualInstallationSaysItsOwnInstructions() {
        let manifest = ModelManifest(id: "x", name: "X", files: [], source: "s", licence: "l",
                                     installation: .manual("Put the files in /m/x; see README."))
        #expect(manifest.missing("/m/x/a.onnx").description == "The X model is missing: /m/x/a.onnx not found. Put the files in /m/x; see README.")
    }
}
