// swift-tools-version: 6.1
import PackageDescription

// Every module name starts with "Chorus" (C shims with "CChorus") so none collides with an Apple
// framework (Speech), a SwiftUI type (Text) or another package's module in an app that imports it.
//
// Layers, lowest first; a target imports only targets listed before it (DEVELOPING.md has the table).

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let zip = Target.Dependency.product(name: "ZIPFoundation", package: "ZIPFoundation")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")
let nioWebSocket = Target.Dependency.product(name: "NIOWebSocket", package: "swift-nio")
let httpTypes = Target.Dependency.product(name: "HTTPTypes", package: "swift-http-types")
let httpClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let webSocketClient = Target.Dependency.product(name: "WSClient", package: "swift-websocket")
let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
let hummingbirdTesting = Target.Dependency.product(name: "HummingbirdTesting", package: "hummingbird")
let serviceLifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let unixSignals = Target.Dependency.product(name: "UnixSignals", package: "swift-service-lifecycle")
let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")
let hummingbirdWebSocket = Target.Dependency.product(name: "HummingbirdWebSocket", package: "hummingbird-websocket")
let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
let grpcCore = Target.Dependency.product(name: "GRPCCore", package: "grpc-swift-2")
let grpcTransport = Target.Dependency.product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport")
let grpcProtobuf = Target.Dependency.product(name: "GRPCProtobuf", package: "grpc-swift-protobuf")
let swiftProtobuf = Target.Dependency.product(name: "SwiftProtobuf", package: "swift-protobuf")
let alsaOnLinux = Target.Dependency.target(name: "CChorusAlsa", condition: .when(platforms: [.linux]))

let package = Package(
    name: "Chorus",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        // Files written whole or not at all (StagedFile, OutputTarget), SHA-256, a lock: Foundation only.
        .library(name: "ChorusFiles", targets: ["ChorusFiles"]),
        .library(name: "ChorusModels", targets: ["ChorusModels"]),
        .library(name: "ChorusONNX", targets: ["ChorusONNX"]),
        .library(name: "ChorusAudio", targets: ["ChorusAudio"]),
        // MP3 and FLAC (LAME, libFLAC, libmpg123), a product of its own so ChorusAudio links no C library.
        .library(name: "ChorusAudioCodecs", targets: ["ChorusAudioCodecs"]),
        .library(name: "ChorusDSP", targets: ["ChorusDSP"]),
        .library(name: "ChorusText", targets: ["ChorusText"]),
        .library(name: "ChorusPhonemizer", targets: ["ChorusPhonemizer"]),
        .library(name: "ChorusSpeech", targets: ["ChorusSpeech"]),
        .library(name: "ChorusGeneration", targets: ["ChorusGeneration"]),
        .library(name: "ChorusPieceModel", targets: ["ChorusPieceModel"]),
        .library(name: "ChorusKokoro", targets: ["ChorusKokoro"]),
        .library(name: "ChorusPiper", targets: ["ChorusPiper"]),
        .library(name: "ChorusCosyVoice", targets: ["ChorusCosyVoice"]),
        .library(name: "ChorusNeuTTS", targets: ["ChorusNeuTTS"]),
        .library(name: "ChorusChatterbox", targets: ["ChorusChatterbox"]),
        .library(name: "ChorusVAD", targets: ["ChorusVAD"]),
        .library(name: "ChorusRecognition", targets: ["ChorusRecognition"]),
        .library(name: "ChorusStreaming", targets: ["ChorusStreaming"]),
        // Cloud providers are a product of their own, so an app importing ChorusStreaming pulls in no NIO.
        .library(name: "ChorusCloud", targets: ["ChorusCloud"]),
        // Google Cloud Text-to-Speech over gRPC, apart from ChorusCloud so only its users build gRPC and protobuf.
        .library(name: "ChorusGoogle", targets: ["ChorusGoogle"]),
        // Model downloads (AsyncHTTPClient, ZIPFoundation), a product of their own so ChorusModels stays Foundation-only.
        .library(name: "ChorusHub", targets: ["ChorusHub"]),
        // Fakes and a manual clock for testing code that drives engines and providers.
        .library(name: "ChorusTesting", targets: ["ChorusTesting"]),
        // The engine registry, and the whole toolkit in one import.
        .library(name: "ChorusEngines", targets: ["ChorusEngines"]),
        .library(name: "Chorus", targets: ["Chorus"]),
        // The OpenAI-compatible speech server behind `chorus serve`, for apps that embed it.
        .library(name: "ChorusServer", targets: ["ChorusServer"]),
        .executable(name: "chorus", targets: ["ChorusCLI"]),
        .executable(name: "chorus-bench", targets: ["ChorusBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Already in the graph (gRPC's transport and swift-certificates); ChorusHub hashes downloads with it.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // System and C shims.
        .target(name: "CChorusONNX"),
        .systemLibrary(name: "CChorusEspeak", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"]), .brew(["espeak-ng"])]),
        .systemLibrary(name: "CChorusAlsa", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CChorusLame", pkgConfig: "lame", providers: [.apt(["libmp3lame-dev"]), .brew(["lame"])]),
        .systemLibrary(name: "CChorusFLAC", pkgConfig: "flac", providers: [.apt(["libflac-dev"]), .brew(["flac"])]),
        .systemLibrary(name: "CChorusMPG123", pkgConfig: "libmpg123", providers: [.apt(["libmpg123-dev"]), .brew(["mpg123"])]),
        .systemLibrary(name: "CChorusOpus", pkgConfig: "libopusenc", providers: [.apt(["libopusenc-dev"]), .brew(["libopusenc"])]),
        .systemLibrary(name: "CChorusAVCodec", pkgConfig: "libavcodec", providers: [.apt(["libavcodec-dev"]), .brew(["ffmpeg"])]),
        .systemLibrary(name: "CChorusOpusFile", pkgConfig: "opusfile", providers: [.apt(["libopusfile-dev"]), .brew(["opusfile"])]),

        // Foundations: no model knowledge.
        .target(name: "ChorusFiles"),
        .target(name: "ChorusModels", dependencies: ["ChorusFiles"]),
        .target(name: "ChorusONNX", dependencies: ["CChorusONNX", "ChorusFiles", "ChorusModels"]),
        .target(name: "ChorusAudio", dependencies: ["ChorusFiles"]),
        .target(name: "ChorusAudioCodecs", dependencies: ["ChorusAudio", "CChorusLame", "CChorusFLAC", "CChorusMPG123", "CChorusOpus", "CChorusAVCodec"]),
        .target(name: "ChorusDSP"),
        .target(name: "ChorusText", dependencies: ["ChorusModels"]),
        .target(name: "ChorusPhonemizer", dependencies: ["CChorusEspeak"]),
        .target(name: "ChorusSpeech"),
        .target(name: "ChorusGeneration", dependencies: ["ChorusONNX", "ChorusDSP"]),
        .target(name: "ChorusPieceModel", dependencies: ["ChorusSpeech", "ChorusONNX", "ChorusText"]),

        // Engines and listeners.
        .target(name: "ChorusKokoro", dependencies: ["ChorusFiles", "ChorusModels", "ChorusSpeech", "ChorusONNX", "ChorusPieceModel", "ChorusPhonemizer", "ChorusText", "ChorusDSP", zip]),
        .target(name: "ChorusPiper", dependencies: ["ChorusModels", "ChorusSpeech", "ChorusONNX", "ChorusPieceModel", "ChorusPhonemizer", "ChorusText"]),
        .target(name: "ChorusCosyVoice", dependencies: ["ChorusModels", "ChorusSpeech", "ChorusGeneration", "ChorusONNX", "ChorusAudio", "ChorusDSP", "ChorusText"]),
        .target(name: "ChorusNeuTTS", dependencies: ["ChorusModels", "ChorusSpeech", "ChorusGeneration", "ChorusONNX", "ChorusAudio", "ChorusPhonemizer", "ChorusDSP", "ChorusText"]),
        .target(name: "ChorusChatterbox", dependencies: ["ChorusModels", "ChorusSpeech", "ChorusGeneration", "ChorusONNX", "ChorusAudio", "ChorusDSP", "ChorusText"]),
        .target(name: "ChorusVAD", dependencies: ["ChorusModels", "ChorusONNX", "ChorusSpeech"]),
        .target(name: "ChorusRecognition", dependencies: ["ChorusModels", "ChorusVAD", "ChorusONNX", "ChorusDSP", "ChorusText", "ChorusAudio", "ChorusSpeech"]),

        // Playback and providers.
        .target(name: "ChorusStreaming", dependencies: ["ChorusFiles", "ChorusSpeech", "ChorusAudio", "ChorusText", alsaOnLinux]),
        .target(name: "ChorusTesting", dependencies: ["ChorusFiles", "ChorusSpeech", "ChorusStreaming"]),
        .target(name: "ChorusCloud", dependencies: ["ChorusFiles", "ChorusStreaming", "ChorusText", logging, nioCore, httpTypes, httpClient, webSocketClient]),
        .target(name: "ChorusGoogle", dependencies: ["ChorusFiles", "ChorusStreaming", "ChorusCloud", grpcCore, grpcTransport, grpcProtobuf, swiftProtobuf]),
        .target(name: "ChorusHub", dependencies: ["ChorusFiles", "ChorusModels", nioCore, httpClient, crypto, zip]),

        // The registry and the umbrella.
        .target(name: "ChorusEngines", dependencies: ["ChorusFiles", "ChorusModels", "ChorusSpeech", "ChorusONNX", "ChorusText", "ChorusKokoro", "ChorusPiper", "ChorusCosyVoice", "ChorusNeuTTS", "ChorusChatterbox", "ChorusVAD", "ChorusRecognition"]),
        .target(name: "Chorus", dependencies: ["ChorusEngines", "ChorusFiles", "ChorusModels", "ChorusAudio", "ChorusDSP", "ChorusText", "ChorusPhonemizer", "ChorusGeneration", "ChorusPieceModel", "ChorusSpeech", "ChorusONNX", "ChorusVAD", "ChorusRecognition", "ChorusStreaming"]),

        // The server.
        .target(name: "ChorusServer", dependencies: ["ChorusAudioCodecs", "ChorusFiles", "ChorusModels", "ChorusText", "ChorusEngines", "ChorusSpeech", "ChorusAudio", "ChorusStreaming", "ChorusRecognition", "ChorusVAD", "ChorusONNX", hummingbird, hummingbirdWebSocket, httpTypes, nioCore, nioHTTP1, nioWebSocket, logging, serviceLifecycle, unixSignals, prometheus, grdb], resources: [.copy("Playground")]),

        // The command.
        .executableTarget(name: "ChorusCLI", dependencies: ["ChorusFiles", "ChorusModels", "ChorusSpeech", "ChorusAudio", "ChorusDSP", "ChorusText", "ChorusKokoro", "ChorusPiper", "ChorusCosyVoice", "ChorusNeuTTS", "ChorusChatterbox", "ChorusStreaming", "ChorusONNX", "ChorusVAD", "ChorusRecognition", "ChorusEngines", "ChorusServer", "ChorusAudioCodecs", "ChorusCloud", "ChorusGoogle", "ChorusHub", argumentParser]),

        // Benchmarks (bench/*.py run them beside the Python references).
        .target(name: "BenchSupport", path: "bench/BenchSupport"),
        .executableTarget(name: "ChorusBench", dependencies: ["ChorusKokoro", "ChorusPiper", "ChorusSpeech", "ChorusONNX"]),
        .executableTarget(name: "DSPBench", dependencies: ["ChorusAudio", "ChorusDSP"], path: "bench/DSPBench"),
        .executableTarget(name: "TextBench", dependencies: ["ChorusText"], path: "bench/TextBench"),
        .executableTarget(name: "WeTextBench", dependencies: ["ChorusText"], path: "bench/WeTextBench"),
        .executableTarget(name: "CosyVoiceBench", dependencies: ["BenchSupport", "ChorusCosyVoice", "ChorusSpeech", "ChorusONNX", "ChorusDSP"], path: "bench/CosyVoiceBench"),
        .executableTarget(name: "NeuTTSBench", dependencies: ["BenchSupport", "ChorusNeuTTS", "ChorusONNX", "ChorusSpeech", "ChorusText"], path: "bench/NeuTTSBench"),
        .executableTarget(name: "ChatterboxBench", dependencies: ["BenchSupport", "ChorusChatterbox", "ChorusGeneration", "ChorusONNX", "ChorusSpeech"], path: "bench/ChatterboxBench"),
        .executableTarget(name: "ExecutorBench", dependencies: ["ChorusONNX", "ChorusPiper", "ChorusSpeech"], path: "bench/ExecutorBench"),
        .executableTarget(name: "StreamingBench", dependencies: ["ChorusStreaming", "ChorusKokoro", "ChorusPiper", "ChorusSpeech", "ChorusText"], path: "bench/StreamingBench"),
        .executableTarget(name: "FuzzBench", dependencies: ["ChorusAudio", "ChorusDSP", "ChorusText", "ChorusCosyVoice"], path: "bench/FuzzBench"),

        // Tests, one target per module.
        .testTarget(name: "ChorusFilesTests", dependencies: ["ChorusFiles"]),
        .testTarget(name: "ChorusModelsTests", dependencies: ["ChorusModels", "ChorusFiles"]),
        .testTarget(name: "ChorusONNXTests", dependencies: ["ChorusONNX"], resources: [.copy("Models")]),
        .testTarget(name: "ChorusAudioCodecsTests", dependencies: ["ChorusAudioCodecs", "ChorusAudio", "ChorusTesting", "CChorusLame", "CChorusFLAC", "CChorusOpusFile", "CChorusAVCodec"]),
        .testTarget(name: "ChorusAudioTests", dependencies: ["ChorusAudio", "ChorusFiles", "ChorusModels", "ChorusDSP"], resources: [.copy("Resources")]),
        .testTarget(name: "ChorusDSPTests", dependencies: ["ChorusDSP"], resources: [.copy("Golden")]),
        .testTarget(name: "ChorusTextTests", dependencies: ["ChorusText", "ChorusModels", "ChorusDSP", "ChorusCosyVoice"]),
        .testTarget(name: "ChorusPhonemizerTests", dependencies: ["ChorusPhonemizer"]),
        .testTarget(name: "ChorusSpeechTests", dependencies: ["ChorusSpeech"]),
        .testTarget(name: "ChorusGenerationTests", dependencies: ["ChorusGeneration", "ChorusDSP", "ChorusONNX"]),
        .testTarget(name: "EngineTests", dependencies: ["ChorusModels", "ChorusKokoro", "ChorusPiper", "ChorusPieceModel", "ChorusSpeech", "ChorusAudio", "ChorusStreaming", "ChorusTesting", "ChorusONNX", "ChorusDSP", zip], resources: [.copy("Models"), .copy("FrontEnd")]),
        .testTarget(name: "ChorusCosyVoiceTests", dependencies: ["ChorusModels", "ChorusCosyVoice", "ChorusGeneration", "ChorusDSP", "ChorusSpeech", "ChorusONNX", "ChorusText", "ChorusPiper"], resources: [.copy("Resources")]),
        .testTarget(name: "ChorusNeuTTSTests", dependencies: ["ChorusNeuTTS", "ChorusTesting", "ChorusModels", "ChorusGeneration", "ChorusPhonemizer", "ChorusSpeech", "ChorusDSP", "ChorusONNX", "ChorusText", "ChorusAudio"], resources: [.copy("Resources")]),
        .testTarget(name: "ChorusChatterboxTests", dependencies: ["ChorusChatterbox", "ChorusFiles", "ChorusModels", "ChorusGeneration", "ChorusSpeech", "ChorusDSP", "ChorusONNX", "ChorusText", "ChorusAudio"], resources: [.copy("Resources")]),
        .testTarget(name: "ChorusVADTests", dependencies: ["ChorusModels", "ChorusVAD", "ChorusSpeech", "ChorusAudio"], resources: [.copy("Resources")]),
        .testTarget(name: "ChorusRecognitionTests", dependencies: ["ChorusRecognition", "ChorusModels", "ChorusVAD", "ChorusAudio", "ChorusDSP", "ChorusONNX"], resources: [.copy("Resources")]),
        .testTarget(name: "ChorusStreamingTests", dependencies: ["ChorusFiles", "ChorusModels", "ChorusStreaming", "ChorusSpeech", "ChorusAudio", "ChorusDSP", "ChorusTesting"]),
        .testTarget(name: "ChorusHubTests", dependencies: ["ChorusHub", "ChorusFiles", "ChorusModels", hummingbird, hummingbirdTesting, httpTypes, nioCore, nioPosix, zip]),
        .testTarget(name: "ChorusCloudTests", dependencies: ["ChorusFiles", "ChorusModels", "ChorusCloud", "ChorusStreaming", "ChorusTesting", hummingbird, hummingbirdTesting, hummingbirdWebSocket]),
        .testTarget(name: "ChorusGoogleTests", dependencies: ["ChorusFiles", "ChorusModels", "ChorusGoogle", "ChorusCloud", "ChorusStreaming", "ChorusTesting", grpcCore, grpcTransport, grpcProtobuf, swiftProtobuf, nioCore, nioPosix]),
        .testTarget(name: "ChorusTests", dependencies: ["Chorus", "ChorusTesting"]),
        .testTarget(name: "ChorusServerTests", dependencies: ["ChorusAudioCodecs", "ChorusFiles", "ChorusRecognition", "ChorusServer", "ChorusEngines", "ChorusModels", "ChorusSpeech", "ChorusTesting", "ChorusCloud", "ChorusAudio", "ChorusStreaming", "ChorusVAD", hummingbird, hummingbirdTesting, httpTypes, httpClient, serviceLifecycle, unixSignals, nioCore, nioPosix, webSocketClient]),
        .testTarget(name: "ChorusCLITests", dependencies: ["ChorusCLI", "ChorusFiles", "ChorusEngines", "ChorusServer", "ChorusTesting", "ChorusAudio", "ChorusModels", "ChorusChatterbox", "ChorusSpeech", "ChorusCloud", "ChorusGoogle", "ChorusStreaming", grpcCore, grpcTransport, grpcProtobuf, swiftProtobuf, hummingbird, hummingbirdTesting]),
    ],
    swiftLanguageModes: [.v6]
)
