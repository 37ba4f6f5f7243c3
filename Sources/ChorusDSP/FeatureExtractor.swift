/// A feature extractor: mono samples at `sampleRate` in, a frames x features matrix out.
public protocol FeatureExtractor: Sendable {
    /// The rate the input must have, in Hz.
    var sampleRate: Int { get }
    /// Features per frame.
    var featureCount: Int { get }
    /// The features of `samples`, frames x `featureCount`.
    func callAsFunction(_ samples: [Float]) -> Matrix
}

extension KaldiFbank: FeatureExtractor {
    public var featureCount: Int { melCount }
}

/// The feature extractors the models Chorus runs expect, by name.
public enum FeatureKind: String, CaseIterable, Sendable {
    /// Kaldi fbank, 80 bins, per-bin mean removed: the CAMPPlus speaker-embedding input.
    case kaldi
    /// Whisper log-mel, 80 bins.
    case whisper80
    /// Whisper log-mel, 128 bins (large-v3, CosyVoice's speech tokenizer).
    case whisper128
    /// NeMo FilterbankFeatures, 80 bins, per-feature normalised (FastConformer).
    case nemo80
    /// NeMo FilterbankFeatures, 128 bins.
    case nemo128
    /// Matcha-TTS mel at 24 kHz (the CosyVoice prompt mel).
    case matcha

    /// The extractor with the settings its model was trained with.
    public var extractor: any FeatureExtractor {
        switch self {
        case .kaldi: KaldiFbank.campPlus
        case .whisper80: WhisperLogMel(melCount: 80)
        case .whisper128: WhisperLogMel(melCount: 128)
        case .nemo80: NeMoFilterbank(melCount: 80)
        case .nemo128: NeMoFilterbank(melCount: 128)
        case .matcha: MatchaMel()
        }
    }

    /// One line on what the kind is for.
    public var summary: String {
        switch self {
        case .kaldi: "Kaldi fbank 80, 16 kHz, per-bin mean removed (CAMPPlus speaker embedding input)"
        case .whisper80: "Whisper log-mel 80, 16 kHz"
        case .whisper128: "Whisper log-mel 128, 16 kHz (large-v3, CosyVoice speech tokenizer)"
        case .nemo80: "NeMo filterbank 80, 16 kHz, per-feature normalised (FastConformer)"
        case .nemo128: "NeMo filterbank 128, 16 kHz, per-feature normalised"
        case .matcha: "Matcha mel 80, 24 kHz, n_fft 1920, hop 480 (CosyVoice prompt mel)"
        }
    }
}
