/// What to say and how: the text, the voice, and the speaking rate.
public struct SynthesisRequest: Sendable, Hashable {
    public var text: String
    /// A voice id of the engine; `nil` picks the engine's default voice.
    public var voice: String?
    /// Speaking rate, 1 being the voice's natural pace; engines accept 0.5 to 2.
    public var speed: Float

    public init(text: String, voice: String? = nil, speed: Float = 1) {
        self.text = text
        self.voice = voice
        self.speed = speed
    }
}

/// A piece of synthesised audio, mono Float32 in [-1, 1].
public struct AudioChunk: Sendable, Equatable {
    public var samples: [Float]
    public var sampleRate: Int
    /// The part of the request's text this audio speaks, when the engine knows it.
    public var text: String?

    public init(samples: [Float], sampleRate: Int, text: String? = nil) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.text = text
    }

    /// Length in seconds.
    public var duration: Double { Double(samples.count) / Double(sampleRate) }
}
