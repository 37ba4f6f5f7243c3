import ArgumentParser
import ChorusEngines
import ChorusServer
import Foundation

/// `chorus serve`: the OpenAI-compatible speech server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve OpenAI-compatible speech (POST /v1/audio/speech) from the local engines.",
        discussion: """
            The web playground is at / (speak, history, cloning, transcription). Routes: POST /v1/audio/speech \
            (model = engine id, input, voice, speed, response_format wav, pcm, mp3, flac, opus or aac, stream false for a whole file, stream_format audio or sse), \
            GET /v1/models, GET|POST /v1/audio/voices, POST /v1/audio/transcriptions, GET /health, GET /metrics. \
            Engines load on first use. Stop with Ctrl-C or SIGTERM: requests in flight finish first.

            Example:
              chorus serve --port 8880
              curl -s localhost:8880/v1/audio/speech -H 'Content-Type: application/json' \\
                -d '{"model": "kokoro", "input": "Hello there.", "voice": "jf_alpha"}' -o hello.wav
            """
    )

    @Option(help: "The address to listen on; 0.0.0.0 opens it to the network.")
    var host = "127.0.0.1"

    @Option(help: "The port.")
    var port = 8880

    @Option(help: ArgumentHelp("Require 'Authorization: Bearer KEY' (or 'xi-api-key: KEY') on /v1 routes and the playground's history (default: $CHORUS_API_KEY, if set); the page, /health and /metrics stay open.",
                               valueName: "key"))
    var apiKey: String?

    @Flag(help: "Put /metrics behind the API key too.")
    var protectMetrics = false

    @Option(help: ArgumentHelp("Close a connection that sends no whole request head (or no WebSocket key) for this long.",
                               valueName: "seconds"))
    var idleTimeout = 30.0

    @Option(help: ArgumentHelp("Answer 408 to a request whose body takes longer than this to arrive.", valueName: "seconds"))
    var bodyTimeout = 60.0

    @Option(help: ArgumentHelp("Cancel a request whose client has read none of its audio for this long.", valueName: "seconds"))
    var writeTimeout = 60.0

    @Option(help: "Connections open at once (lowered to fit the descriptor limit); past it the oldest idle one is closed.")
    var maxConnections = 512

    @Option(help: "Connections one client address holds at once; past it its oldest idle one is closed (raise it behind a local proxy).")
    var maxConnectionsPerAddress = 256

    @Option(help: ArgumentHelp("Unload an engine no request has used for this long (0 keeps engines loaded once used).",
                               valueName: "seconds"))
    var unloadIdleAfter = 300.0

    @Option(help: "The longest input one speech request may carry, in characters.")
    var maxText = 4_096

    @Option(help: "Requests one engine holds at once, running or waiting; the next is refused with 429.")
    var queue = 8

    @Option(help: ArgumentHelp("Serve only these engines (repeat the option): \(EngineChoice.allValueStrings.joined(separator: ", ")); "
                               + "the first is what OpenAI model names mean.", valueName: "engine"))
    var engine: [EngineChoice] = []

    @Option(help: ArgumentHelp("Where the web playground keeps its history (history.sqlite; default: playground in the model folder).",
                               valueName: "folder"))
    var historyFolder: String?

    @Flag(help: "Keep no playground history.")
    var noHistory = false

    @Option(help: ArgumentHelp(
        "A JSON file of the voices OpenAI's voice names (alloy, ash, ..., verse) stand for, per engine.",
        discussion: #"{"kokoro": {"alloy": ["af_heart", "jf_alpha"]}}: the first installed voice of a list is used; names and engines left out keep the standard lists (see OpenAIVoiceMap)."#,
        valueName: "file"))
    var openaiVoices: String?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535.") }
        guard maxText > 0 else { throw ValidationError("--max-text must be 1 or more.") }
        guard queue > 0 else { throw ValidationError("--queue must be 1 or more.") }
        guard maxConnections > 0 else { throw ValidationError("--max-connections must be 1 or more.") }
        guard maxConnectionsPerAddress > 0 else { throw ValidationError("--max-connections-per-address must be 1 or more.") }
        guard unloadIdleAfter >= 0, unloadIdleAfter.isFinite else {
            throw ValidationError("--unload-idle-after must be a number of seconds, 0 to keep engines loaded.")
        }
        for (name, seconds) in [("--idle-timeout", idleTimeout), ("--body-timeout", bodyTimeout), ("--write-timeout", writeTimeout)] {
            guard seconds > 0, seconds.isFinite else { throw ValidationError("\(name) must be a number of seconds above 0.") }
        }
        if protectMetrics, apiKey == nil, ProcessInfo.processInfo.environment["CHORUS_API_KEY"] == nil {
            throw ValidationError("--protect-metrics needs a key: give --api-key or set CHORUS_API_KEY.")
        }
        if let apiKey, BearerKey(apiKey) == nil { throw ValidationError("--api-key is empty; give a key or leave the option out.") }
        if noHistory, historyFolder != nil { throw ValidationError("--no-history and --history-folder contradict each other; give one.") }
    }

    func run() async throws {
        let key = (apiKey ?? ProcessInfo.processInfo.environment["CHORUS_API_KEY"]).flatMap(BearerKey.init)
        let engines = engine.isEmpty ? Engine.all : engine.map(\.engine)
        var configuration = ServerConfiguration(host: host, port: port, apiKey: key,
                                                maximumTextCharacters: maxText, queueLimit: queue,
                                                historyFolder: noHistory ? nil : historyFolder.map { URL(fileURLWithPath: $0) }
                                                    ?? ServerConfiguration.defaultHistoryFolder,
                                                protectsMetrics: protectMetrics, idleTimeout: .seconds(idleTimeout),
                                                bodyTimeout: .seconds(bodyTimeout), writeTimeout: .seconds(writeTimeout),
                                                maximumConnections: maxConnections, maximumConnectionsPerAddress: maxConnectionsPerAddress)
        configuration.engineIdleUnload = unloadIdleAfter > 0 ? .seconds(unloadIdleAfter) : nil
        if let openaiVoices { configuration.openAIVoices = try OpenAIVoiceMap(contentsOf: URL(fileURLWithPath: openaiVoices)) }
        FileHandle.standardError.write(Data("""
            chorus serve: http://\(host):\(port) (engines: \(engines.map(\.id).joined(separator: ", "))\
            \(key == nil ? "" : "; API key required"))\n
            """.utf8))
        try await SpeechServer(configuration: configuration, engines: engines).run()
    }
}
