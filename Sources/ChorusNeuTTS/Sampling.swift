import ChorusGeneration

/// How the backbone's next token is drawn; each case is a list of ChorusGeneration's sampling steps.
public enum NeuTTSSampling: Sendable, Equatable {
    /// upstream's PyTorch path (`NeuTTS._infer_torch`: Hugging Face `generate` with do_sample): the stop
    /// token masked until `minimumTokens` tokens exist, then temperature, then top-k.
    case torch(temperature: Float, topK: Int, minimumTokens: Int)
    /// upstream's GGUF path (llama-cpp-python's chain with neutts' temperature and top-k): top-k, top-p
    /// over the remaining candidates, min-p, temperature; no minimum length.
    case gguf(temperature: Float, topK: Int, topP: Double, minP: Float)
    /// The most likely token every step, no randomness.
    case greedy

    /// upstream's default: the PyTorch path with temperature 1, top-k 50 and 50 tokens at least.
    public static let upstream = NeuTTSSampling.torch(temperature: 1, topK: 50, minimumTokens: 50)
    /// The GGUF path with neutts' and llama.cpp's defaults.
    public static let ggufDefaults = NeuTTSSampling.gguf(temperature: 1, topK: 50, topP: 0.95, minP: 0.05)

    /// The steps that draw one token, `stopToken` ending generation.
    public func steps(stopToken: Int) -> [any SamplingStep] {
        switch self {
        case .torch(let temperature, let topK, let minimumTokens):
            // Hugging Face applies the length processor before the warpers; its TopKLogitsWarper keeps every
            // token tied with the k-th (`scores < topk(...)[..., -1]` is what it removes).
            return [SuppressStopTokens(stopToken..<(stopToken + 1), until: minimumTokens),
                    Temperature(temperature), TopK(topK, keepsTies: true), CategoricalDraw()]
        case .gguf(let temperature, let topK, let topP, let minP):
            // llama.cpp's top-k sorts and keeps exactly k, ties or not.
            return [TopK(topK), TopP(topP), MinP(minP), Temperature(temperature), CategoricalDraw()]
        case .greedy:
            return [GreedyDraw()]
        }
    }
}
