// swift-tools-version: 6.1
import PackageDescription

// Layers, lowest first; a target only ever imports the ones above it in this list.
//   COnnxRuntime -> OnnxRuntime                      (ONNX Runtime, loaded at run time)
//   Audio, DSP, Text                                 (pure Swift, no model knowledge)
//   CEspeakNG -> Phonemizer                          (espeak-ng, a system library)
//   Speech                                           (engine protocols and shared types)
//   Kokoro, Piper, ...                               (one target per engine)
//   Streaming                                        (playback pipeline and providers)
//   chorus                                           (the command)
let package = Package(
    name: "Chorus",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "OnnxRuntime", targets: ["OnnxRuntime"]),
        .library(name: "Audio", targets: ["Audio"]),
        .library(name: "DSP", targets: ["DSP"]),
        .library(name: "Text", targets: ["Text"]),
        .library(name: "Phonemizer", targets: ["Phonemizer"]),
        .library(name: "Speech", targets: ["Speech"]),
        .library(name: "Kokoro", targets: ["Kokoro"]),
        .library(name: "Piper", targets: ["Piper"]),
        .library(name: "Streaming", targets: ["Streaming"]),
        .library(name: "CosyVoice", targets: ["CosyVoice"]),
        .executable(name: "chorus", targets: ["ChorusCLI"]),
        .executable(name: "chorus-bench", targets: ["ChorusBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
    ],
    targets: [
        .target(name: "COnnxRuntime"),
        .target(name: "OnnxRuntime", dependencies: ["COnnxRuntime"]),
        .target(name: "Audio"),
        .target(name: "DSP"),
        .target(name: "Text"),
        .systemLibrary(
            name: "CEspeakNG",
            pkgConfig: "espeak-ng",
            providers: [.apt(["libespeak-ng-dev"]), .brew(["espeak-ng"])]
        ),
        .target(name: "Phonemizer", dependencies: ["CEspeakNG"]),
        .target(name: "Speech"),
        .target(
            name: "Kokoro",
            dependencies: ["Speech", "OnnxRuntime", "Phonemizer", "Text", "DSP",
                           .product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        .target(name: "Piper", dependencies: ["Speech", "OnnxRuntime", "Phonemizer", "Text"]),
        .target(name: "Streaming", dependencies: ["Speech", "Audio"]),
        .target(name: "CosyVoice", dependencies: ["Speech", "OnnxRuntime", "Audio", "DSP", "Text"]),
        .testTarget(name: "CosyVoiceTests", dependencies: ["CosyVoice", "Speech", "OnnxRuntime", "Text", "Piper"],
                    resources: [.copy("Resources")]),
        .executableTarget(
            name: "ChorusCLI",
            dependencies: ["Speech", "Audio", "DSP", "Text", "Kokoro", "Piper", "Streaming", "OnnxRuntime", "CosyVoice",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        .executableTarget(name: "DSPBench", dependencies: ["Audio", "DSP"], path: "bench/DSPBench"),
        .executableTarget(name: "TextBench", dependencies: ["Text"], path: "bench/TextBench"),
        .executableTarget(name: "CosyVoiceBench", dependencies: ["CosyVoice", "OnnxRuntime"], path: "bench/CosyVoiceBench"),
        .executableTarget(name: "ChorusBench", dependencies: ["Kokoro", "Piper", "Speech", "OnnxRuntime"]),

        .testTarget(name: "OnnxRuntimeTests", dependencies: ["OnnxRuntime"], resources: [.copy("Models")]),
        .testTarget(name: "AudioTests", dependencies: ["Audio"]),
        .testTarget(name: "DSPTests", dependencies: ["DSP"], resources: [.copy("Golden")]),
        .testTarget(name: "TextTests", dependencies: ["Text"]),
        .testTarget(name: "PhonemizerTests", dependencies: ["Phonemizer"]),
        .testTarget(name: "SpeechTests", dependencies: ["Speech"]),
        .testTarget(name: "EngineTests", dependencies: ["Kokoro", "Piper", "Speech", "Audio"]),
        .testTarget(name: "ChorusCLITests", dependencies: ["ChorusCLI"]),
        .testTarget(name: "StreamingTests", dependencies: ["Streaming", "Speech", "Audio"]),
    ],
    swiftLanguageModes: [.v6]
)

// Speech recognition (issue 7): Silero voice activity detection, the FastConformer CTC recogniser,
// live transcription, and the `chorus vad` / `chorus transcribe` commands that use them.
package.products += [
    .library(name: "VAD", targets: ["VAD"]),
    .library(name: "SpeechRecognition", targets: ["SpeechRecognition"]),
]
package.targets += [
    .target(name: "VAD", dependencies: ["OnnxRuntime", "Speech"]),
    .target(name: "SpeechRecognition", dependencies: ["VAD", "OnnxRuntime", "DSP", "Text", "Audio", "Speech"]),
    .testTarget(name: "VADTests", dependencies: ["VAD", "Speech", "Audio"], resources: [.copy("Resources")]),
    .testTarget(name: "SpeechRecognitionTests", dependencies: ["SpeechRecognition", "VAD", "Audio", "DSP", "OnnxRuntime"],
                resources: [.copy("Resources")]),
]
package.targets.first { $0.name == "ChorusCLI" }!.dependencies += ["VAD", "SpeechRecognition"]
package.targets.first { $0.name == "ChorusCLITests" }!.dependencies += ["Audio"]  // writes WAV inputs

// Streaming: the ALSA device sink (Linux).
package.targets += [
    .systemLibrary(name: "CAlsa", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
]
package.targets.first { $0.name == "Streaming" }!.dependencies += [
    .target(name: "CAlsa", condition: .when(platforms: [.linux])),
]
package.targets += [
    .executableTarget(name: "StreamingBench", dependencies: ["Streaming", "Kokoro", "Piper", "Speech"], path: "bench/StreamingBench"),
]

// Streaming's cloud providers, a product of their own so that an app importing `Streaming` pulls in no NIO.
package.products += [.library(name: "StreamingCloud", targets: ["StreamingCloud"])]
package.dependencies += [
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
]
package.targets += [
    .target(
        name: "StreamingCloud",
        dependencies: ["Streaming",
                       .product(name: "Logging", package: "swift-log"),
                       .product(name: "NIOCore", package: "swift-nio"),
                       .product(name: "HTTPTypes", package: "swift-http-types"),
                       .product(name: "AsyncHTTPClient", package: "async-http-client"),
                       .product(name: "WSClient", package: "swift-websocket")]
    ),
    .testTarget(
        name: "StreamingCloudTests",
        dependencies: ["StreamingCloud", "Streaming",
                       .product(name: "Hummingbird", package: "hummingbird"),
                       .product(name: "HummingbirdTesting", package: "hummingbird"),
                       .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket")]
    ),
]

// wetext text normalisation benchmark (bench/wetext_bench.py runs it beside Python wetext).
package.targets += [
    .executableTarget(name: "WeTextBench", dependencies: ["Text"], path: "bench/WeTextBench"),
]
