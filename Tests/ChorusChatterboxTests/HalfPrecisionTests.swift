import ChorusONNX
import ChorusSpeech
import Foundation
import Testing
@testable import ChorusChatterbox
@testable import ChorusGeneration

/// The export's float16 variant, on the generated graphs converted with onnxconverter-common
/// (scripts/testdata/chatterbox/make_fp16.py): element types differ per tensor and between graphs, and the
/// engine reads each from its session.
///
/// Sampled tokens are not the float32 graphs' tokens: the float16 logits make many candidates equally likely,
/// and the pinned draw orders candidates by probability, ties by id, so the draws differ from the first one on
/// (the generator prints it). The goldens here are upstream's `T3.inference_turbo` with its modules computed by
/// the float16 graphs, and upstream's S3Gen audio of those tokens. The ties also reach top-k: Hugging Face's
/// warper keeps every token tied with the 1000th (1002 at the first draw of "hello"), which Chorus has to do too
/// to draw upstream's tokens.
@Suite struct HalfPrecisionTests {
    /// The float16 decoder against upstream's float32 S3Gen: its activations are float16, whose spacing near
    /// the waveform's peak (about 0.9) is 4.9e-4; make_fp16.py measured at most 7.2e-4. Held to 4 such steps.
    static let audioTolerance: Float = 2e-3

    @Test func folderLoadsWithElementTypesPerTensor() throws {
        let folder = try ChatterboxModelFolder(url: TestResources.modelFP16)
        let embed = try InferenceSession(modelPath: folder.path(ChatterboxModelFolder.embedTokens))
        let language = try InferenceSession(modelPath: folder.path(ChatterboxModelFolder.languageModel))
        let decoder = try InferenceSession(modelPath: folder.path(ChatterboxModelFolder.conditionalDecoder))
        #expect(embed.input(named: "input_ids")?.elementType == .int64)
        #expect(embed.output(named: "inputs_embeds")?.elementType == .float16)
        #expect(language.input(named: "inputs_embeds")?.elementType == .float16)
        #expect(language.input(named: "attention_mask")?.elementType == .int64)
        #expect(language.input(named: "position_ids")?.elementType == .int64)
        #expect(language.output(named: "logits")?.elementType == .float16)
        for layer in 0..<2 {
            for kind in ["key", "value"] {
                #expect(language.input(named: "past_key_values.\(layer).\(kind)")?.elementType == .float16)
                #expect(language.output(named: "present.\(layer).\(kind)")?.elementType == .float16)
            }
        }
        // The decoder keeps float32 at its edges (keep_io_types), float16 inside.
        #expect(decoder.input(named: "speech_tokens")?.elementType == .int64)
        #expect(decoder.input(named: "speaker_embeddings")?.elementType == .float32)
        #expect(decoder.input(named: "speaker_features")?.elementType == .float32)
        #expect(decoder.output(named: "waveform")?.elementType == .float32)

        let model = try LanguageModel(embed: embed, language: language)
        #expect(model.layers == 2 && model.heads == 2 && model.headSize == 16)
        _ = try ConditionalDecoder(session: decoder)
        _ = try ChatterboxTextEncoder(folder: folder.url)
    }

    /// upstream's loop on the float16 graphs: the same tokens, the KV cache kept in float16 (the graph's own type,
    /// as the first decode step showed it), and the audio within the tolerance of upstream's S3Gen. The cases'
    /// draws keep margins (recorded in the goldens; equal float16 values tie in a fixed order, so only a different
    /// value is a boundary), shown here at 1 and 2 threads and with the logits perturbed by a relative 1e-5.
    @Test(arguments: ["hello", "tags", "capped"], GoldenRun.allCases)
    func tokensEqualUpstreamOnFloat16Graphs(name: String, run: GoldenRun) throws {
        let golden = try TestResources.decoded("fp16-\(name).json", as: TestResources.Case.self)
        let float32 = try TestResources.decoded("\(name).json", as: TestResources.Case.self)
        let encoder = try ChatterboxTextEncoder(folder: TestResources.modelFP16)
        let ids = try encoder.ids(for: golden.text)
        #expect(ids == golden.textIds.map(EmbeddingIDs.row(ofTextID:)) + [EmbeddingIDs.startOfSpeech])
        let voice = try VoiceConditioning(folder: TestResources.voice)
        let recorded = try #require(golden.margins, "the golden records no margins; run make_fp16.py --goldens-only")
        let model = try TestResources.languageModel(maximumNewTokens: golden.maxGenLen, in: TestResources.modelFP16,
                                                    threads: run.threads)
        let (tokens, margins) = try run.measured {
            try model.generate(.init(voice: voice, ids: ids, seed: golden.seed)) { _ in }
        }
        #expect(margins.count == recorded.count)
        let firstDifference = zip(tokens, float32.tokens).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        print("Chatterbox float16 \(name) (\(run)): \(tokens.count) tokens, upstream on the float16 graphs \(golden.tokens.count); "
              + "float32 graphs \(float32.tokens.count), first different draw \(firstDifference.map(String.init) ?? "none"); "
              + "least margin on Chorus's logits \(margins.map(\.least).min() ?? .infinity), recorded \(recorded.min() ?? 0)")
        #expect(tokens == golden.tokens)
        try run.requireMargins(margins, atLeast: TestResources.leastMargin)
        #expect(model.cachePool.layouts?.map(\.elementType) == [TensorElementType](repeating: .float16, count: 4))

        let decoder = try ConditionalDecoder(session: TestResources.session("conditional_decoder.onnx", in: TestResources.modelFP16))
        let audio = try decoder.decode(tokens, voice: voice)
        let expected = try TestResources.floats("fp16-\(name).f32")
        #expect(audio.count == expected.count)
        let difference = TestResources.maximumDifference(audio, expected)
        print("Chatterbox float16 \(name): \(audio.count) samples, max |difference| from upstream's S3Gen \(difference)")
        #expect(difference < Self.audioTolerance)
    }

    /// The float16 chunked golden's tokens, chunk by chunk, in every `GoldenRun`, each draw keeping
    /// `TestResources.leastMargin` on Chorus's float16 logits.
    @Test(arguments: GoldenRun.allCases) func chunkedTokensEqualUpstreamOnFloat16Graphs(run: GoldenRun) throws {
        let golden = try TestResources.decoded("fp16-chunked.json", as: TestResources.Chunked.self)
        let encoder = try ChatterboxTextEncoder(folder: TestResources.modelFP16)
        let model = try TestResources.languageModel(maximumNewTokens: golden.maxGenLen ?? LanguageModel.maximumNewTokens,
                                                    in: TestResources.modelFP16, threads: run.threads)
        let voice = try VoiceConditioning(folder: TestResources.voice)
        #expect(ChatterboxTextEncoder.chunks(of: golden.text, maxCharacters: 50) == golden.chunks.map(\.text))
        for expected in golden.chunks {
            let recorded = try #require(expected.margins, "the golden records no margins; run make_fp16.py --goldens-only")
            let (tokens, margins) = try run.measured {
                try model.generate(.init(voice: voice, ids: encoder.ids(for: expected.text), seed: golden.seed)) { _ in }
            }
            #expect(tokens == expected.tokens, "\(run)")
            try run.requireMargins(margins, atLeast: TestResources.leastMargin)
            #expect(margins.count == recorded.count)
        }
    }

    /// The engine over a float16 folder: the seed's chunks, each as upstream speaks it on the float16 graphs.
    @Test func engineSpeaksChunksOnFloat16Folder() async throws {
        let golden = try TestResources.decoded("fp16-chunked.json", as: TestResources.Chunked.self)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chatterbox-fp16-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: TestResources.modelFP16, to: folder)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("voices"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestResources.voice, to: folder.appendingPathComponent("voices/eve"))
        let engine = try ChatterboxSynthesizer(
            // The golden's cap per chunk (within the 147 draws the generated decoder leaves the voice), so the
            // chunks stay the golden's 50 characters.
            folder: folder, configuration: .init(seed: golden.seed, chunkCharacters: 50, firstChunkCharacters: 50,
                                                 maximumNewTokens: golden.maxGenLen ?? 100))
        var pieces: [AudioChunk] = []
        for try await chunk in engine.stream(SynthesisRequest(text: golden.text)) { pieces.append(chunk) }
        #expect(pieces.map(\.text) == golden.chunks.map(\.text))
        #expect(pieces.map(\.samples.count) == golden.chunks.map(\.samples))
        let audio = pieces.flatMap(\.samples)
        let expected = try TestResources.floats("fp16-chunked.f32")
        #expect(audio.count == expected.count)
        let difference = TestResources.maximumDifference(audio, expected)
        print("Chatterbox float16 engine: \(pieces.count) chunks, max |difference| from upstream \(difference)")
        #expect(difference < Self.audioTolerance)
    }

    /// A variant folder as `chorus models pull chatterbox:fp16` lays it out: each file of the manifest under the
    /// manifest's name. The export's variant graphs name their weights by the variant's own file
    /// (`language_model_fp16.onnx_data`) and ONNX Runtime looks for them by that name, so the folder has to keep
    /// it (issue 39: the pull stored every variant's weights as `language_model.onnx_data`, and no variant loaded).
    @Test func engineSpeaksFromAVariantFolderAsThePullLaysItOut() async throws {
        let golden = try TestResources.decoded("fp16-chunked.json", as: TestResources.Chunked.self)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chatterbox-pulled-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("voices"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestResources.voice, to: folder.appendingPathComponent("voices/eve"))
        // The generated float16 graphs stand in for the export's: the language model's weights external, the other
        // graphs' inside them (so their .onnx_data, and the speech encoder, are not there).
        for name in ChatterboxSynthesizer.manifest(.fp16).files.compactMap(\.names.first) {
            guard let source = [TestResources.modelFP16External, TestResources.modelFP16].map({ $0.appendingPathComponent(name) })
                .first(where: { FileManager.default.fileExists(atPath: $0.path) }) else { continue }
            try FileManager.default.copyItem(at: source, to: folder.appendingPathComponent(name))
        }
        let engine = try ChatterboxSynthesizer(
            folder: folder, configuration: .init(seed: golden.seed, chunkCharacters: 50, firstChunkCharacters: 50,
                                                 maximumNewTokens: golden.maxGenLen ?? 100))
        var pieces: [AudioChunk] = []
        for try await chunk in engine.stream(SynthesisRequest(text: golden.text)) { pieces.append(chunk) }
        #expect(pieces.map(\.samples.count) == golden.chunks.map(\.samples))
        let difference = TestResources.maximumDifference(pieces.flatMap(\.samples), try TestResources.floats("fp16-chunked.f32"))
        #expect(difference < Self.audioTolerance)
    }
}
