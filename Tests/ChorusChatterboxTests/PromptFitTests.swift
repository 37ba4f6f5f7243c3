import ChorusSpeech
import Foundation
import Testing
@testable import ChorusChatterbox

/// Issue 41, item 6: a voice whose decoder prompt fills the decoder (an 8 s clip: 201 tokens; the generated
/// decoder takes 160 at once) was accepted and then refused on every request. Its prompt is now cut to leave
/// speech room, as upstream cuts its decoder reference to the clip's first 10 s.
@Suite struct PromptFitTests {
    /// The test voice's prompt tiled to 201 tokens and their 402 mel frames.
    static func longVoice() throws -> VoiceConditioning {
        let eve = try VoiceConditioning(folder: TestResources.voice)
        var long = eve
        long.audioTokens = (0..<201).map { eve.audioTokens[$0 % eve.audioTokens.count] }
        long.promptFrames = 402
        long.speakerFeatures = (0..<402).flatMap { frame -> ArraySlice<Float> in
            let source = frame % eve.promptFrames * VoiceConditioning.melBins
            return eve.speakerFeatures[source..<(source + VoiceConditioning.melBins)]
        }
        return long
    }

    /// main: "The voice's prompt is 201 speech tokens, leaving no room for speech within the 160 the decoder takes
    /// at once" on every request.
    @Test func aVoiceWhosePromptFillsTheDecoderSpeaks() async throws {
        let folder = try EngineTests.modelFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = try ChatterboxSynthesizer(folder: folder, configuration: .init(seed: 4, chunkCharacters: 30, firstChunkCharacters: 30))
        let voice = ClonedVoice(voice: Voice(id: "long", engine: "chatterbox", language: "en", gender: .unknown),
                                conditioning: try Self.longVoice())
        let audio = try await engine.synthesize(SynthesisRequest(text: "Hello world.", voice: .cloned(voice)))
        #expect(!audio.isEmpty)
    }

    /// The cut keeps the first tokens and their two frames each, up to half the decoder besides the silence.
    @Test func theCutKeepsThePromptsStartAndLeavesAsMuchRoom() throws {
        let long = try Self.longVoice()
        let generated = ChatterboxCapacity(positions: 2_048, decoderTokens: 160)
        #expect(generated.promptTokens == 78)
        let fitted = generated.fitted(long)
        #expect(fitted.audioTokens == Array(long.audioTokens.prefix(78)))
        #expect(fitted.promptFrames == 156 && fitted.speakerFeatures == Array(long.speakerFeatures.prefix(156 * 80)))
        #expect(fitted.audioFeatures == long.audioFeatures && fitted.speakerEmbeddings == long.speakerEmbeddings)
        #expect(generated.decoderRoom(fitted) == 79)
        // The published decoder keeps upstream's 10 s; a short prompt is never cut.
        #expect(ChatterboxCapacity.published.promptTokens == 250)
        #expect(ChatterboxCapacity.published.fitted(long) == long)
        let eve = try VoiceConditioning(folder: TestResources.voice)
        #expect(generated.fitted(eve) == eve)
    }
}
