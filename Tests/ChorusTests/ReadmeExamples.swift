// The README's library examples, verbatim: README.md shows each block between its `// README:` line
// and the next blank line, and ReadmeExampleTests checks that the two agree and runs every one.
import Chorus
import Foundation

// README: speak
func speak(_ text: String, to file: URL) async throws {
    let kokoro = try await Engine.kokoro.load()
    let samples = try await kokoro.synthesize(SynthesisRequest(text: text, voice: "jf_alpha"))
    try WAVWriter.write(samples, sampleRate: kokoro.sampleRate, to: file)
}

// README: clone
func speakInAClonedVoice(_ text: String, clip: URL, transcript: String, model: URL) async throws -> [Float] {
    let cosyvoice = try await Engine.cosyvoice.loadCloning(from: model)
    let (samples, rate) = try WAVFile.readMono(contentsOf: clip)
    let clipVoice = VoiceClip(samples: samples, sampleRate: rate, transcript: transcript)
    let mine = try await cosyvoice.cloneVoice(from: clipVoice, id: "mine", language: "en")
    return try await cosyvoice.synthesize(SynthesisRequest(text: text, voice: .cloned(mine)))
}

// README: stream
func speakWhileWritten(_ pieces: AsyncStream<String>, into sink: any AudioSink) async throws {
    let piper = try await Engine.piper.load()
    let controller = StreamingTTSController(provider: piper.streamingProvider(), sink: sink)
    try await controller.start()
    for await piece in pieces { controller.yield(text: piece) }
    controller.finish()
    try await controller.waitUntilFinished()
}

// README: transcribe
func transcribe(_ file: URL, model: URL) async throws -> String {
    let recognizer = try FastConformerRecognizer(folder: model)
    let (samples, rate) = try WAVFile.readMono(contentsOf: file)
    return try await recognizer.recognize(samples, sampleRate: rate).text
}
