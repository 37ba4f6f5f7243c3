import ChorusAudio
import Foundation
import Testing

/// `chorus voice add --engine neutts` on the generated NeuTTS test models (Tests/ChorusNeuTTSTests/Resources):
/// a voice from a clip through the NeuCodec encoder is stored as a voice from the same codes given as .npy is.
@Suite struct NeuTTSCommandTests {
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ChorusNeuTTSTests/Resources")

    /// A NeuTTS model folder with the test graphs, with or without the encoder.
    static func folder(encoder: Bool) throws -> URL {
        let folder = try temporaryFolder().appendingPathComponent("neutts")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let names = ["backbone.onnx", "tokenizer.json", "decoder.onnx"] + (encoder ? ["encoder.onnx"] : [])
        for name in names {
            try FileManager.default.copyItem(at: resources.appendingPathComponent("model/\(name)"), to: folder.appendingPathComponent(name))
        }
        return folder
    }

    static func goldenCodes() throws -> [Int] {
        struct Golden: Decodable { var codes_16k: [Int] }
        return try JSONDecoder().decode(Golden.self, from: Data(contentsOf: resources.appendingPathComponent("golden/encoder.json"))).codes_16k
    }

    /// A .npy file of int64 codes [F].
    static func npy(_ codes: [Int], to url: URL) throws {
        var header = "{'descr': '<i8', 'fortran_order': False, 'shape': (\(codes.count),), }"
        while (10 + header.utf8.count + 1) % 64 != 0 { header += " " }
        header += "\n"
        var data = Data([0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)])
        data.append(contentsOf: Array(header.utf8))
        for code in codes { withUnsafeBytes(of: Int64(code).littleEndian) { data.append(contentsOf: $0) } }
        try data.write(to: url)
    }

    @Test func aClipBecomesTheVoiceItsCodesWouldMake() async throws {
        let folder = try Self.folder(encoder: true)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let clip = Self.resources.appendingPathComponent("golden/encoder-16k.wav")
        let text = "What the reference says."
        let added = try await ChorusProcess.running(["voice", "add", "--engine", "neutts", "--audio", clip.path, "--text", text,
                                                     "--id", "fromclip", "--model", folder.path])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput.contains("added voice fromclip (neutts): 130 codes (2.6 s)"), "\(added.standardOutput)")

        let codes = folder.appendingPathComponent("codes.npy")
        try Self.npy(Self.goldenCodes(), to: codes)
        let given = try await ChorusProcess.running(["voice", "add", "--engine", "neutts", "--codes", codes.path, "--text", text,
                                                     "--id", "fromcodes", "--model", folder.path])
        #expect(given.status == 0, "\(given.standardError)")
        for file in ["codes.npy", "transcript.txt"] {
            let a = try Data(contentsOf: folder.appendingPathComponent("voices/fromclip/\(file)"))
            let b = try Data(contentsOf: folder.appendingPathComponent("voices/fromcodes/\(file)"))
            #expect(a == b, "\(file) differs")
        }

        // The id is checked before the clip is encoded, and nothing is clobbered.
        let taken = try await ChorusProcess.running(["voice", "add", "--engine", "neutts", "--audio", clip.path, "--text", "Other.",
                                                     "--id", "fromclip", "--model", folder.path])
        #expect(taken.status != 0 && taken.standardError.contains("add --replace"), "\(taken.standardError)")
        #expect(try String(contentsOf: folder.appendingPathComponent("voices/fromclip/transcript.txt"), encoding: .utf8) == text)
    }

    @Test func aFolderWithoutEncoderSaysWhyAndALongClipIsRefused() async throws {
        let folder = try Self.folder(encoder: false)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let clip = Self.resources.appendingPathComponent("golden/encoder-16k.wav")
        let missing = try await ChorusProcess.running(["voice", "add", "--engine", "neutts", "--audio", clip.path, "--text", "Hi.",
                                                       "--id", "kim", "--model", folder.path])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("Neuphonic publishes pre-encoded references and no encoder export"), "\(missing.standardError)")

        try Data("not an ONNX model".utf8).write(to: folder.appendingPathComponent("encoder.onnx"))
        let broken = try await ChorusProcess.running(["voice", "add", "--engine", "neutts", "--audio", clip.path, "--text", "Hi.",
                                                      "--id", "kim", "--model", folder.path])
        #expect(broken.status != 0)
        #expect(broken.standardError.contains("encoder.onnx"), "\(broken.standardError)")

        let long = folder.appendingPathComponent("long.wav")
        try WAVWriter.write([Float](repeating: 0.1, count: 31 * 8_000), sampleRate: 8_000, to: long)
        let refused = try await ChorusProcess.running(["voice", "add", "--engine", "neutts", "--audio", long.path, "--text", "Hi.",
                                                       "--id", "kim", "--model", folder.path])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("at most 30 s"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("voices/kim").path))
    }
}
