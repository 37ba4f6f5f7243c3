@testable import ChorusModels
import Foundation
import Testing

@Suite struct RemoteManifestTests {
    @Test func aMissingPulledModelNamesThePullCommand() {
        let manifest = ModelManifest(id: "toy", name: "Toy", files: [.init("a.onnx")], source: "test", licence: "none",
                                     installation: .pull("toy:small"))
        #expect(manifest.missing("/m/toy/a.onnx").description.contains("chorus models pull toy:small"))
    }

    @Test func aModelIsDownloadableOnlyWhenEveryRequiredFileHasASource() {
        let hub = RemoteFile.huggingFace(repo: "o/r", revision: "main", path: "a.onnx")
        let full = ModelManifest(id: "a", name: "A", files: [.init("a.onnx", from: hub), .init("b.txt", optionalFor: "x")],
                                 source: "test", licence: "none", installation: .pull("a"))
        #expect(full.isDownloadable)
    }

    @Test func recordedHashesFillOnlyFilesWithoutOne() {
        let manifest = ModelManifest(id: "a", name: "A", files: [.init("a", sha256: "11"), .init("b")], source: "test",
                                     licence: "none", installation: .pull("a"))
        let filled = manifest.recording(["a": "22", "b": "33"])
        #expect(filled.files.map(\.sha256) == ["11", "33"])
    }
}
