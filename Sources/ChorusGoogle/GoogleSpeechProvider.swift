import ChorusCloud
import ChorusFiles
import ChorusStreaming
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import GRPCProtobuf

/// Speech from Google Cloud Text-to-Speech's bidirectional `StreamingSynthesize` over gRPC: text
/// goes up as it arrives, headerless 16-bit PCM comes back as it is made.
///
/// Protocol (google.cloud.texttospeech.v1): the first request holds only the streaming config
/// (voice name and language, `PCM` at the configured rate), every later one only a text input; the
/// call's request side ends when the text does, and the server then finishes the audio and closes.
/// Each `stream(text:)` opens its own HTTP/2 connection and closes it at the end.
///
/// The audio is `StreamedPCMProvider`'s: signed 16-bit little-endian mono at the configured rate, as `PCM`
/// streams it, the response stream read only as fast as the stream is read: while the pipeline's buffer is
/// full, no message is taken from gRPC, its HTTP/2 stream stops returning flow-control credit, and the server
/// waits once `flowControlWindow` bytes are in flight.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public struct GoogleSpeechProvider: TTSProvider, StreamedPCMProvider {
    public var configuration: GoogleSpeechConfiguration

    public init(configuration: GoogleSpeechConfiguration) {
        self.configuration = configuration
    }

    package var sampleRate: Int { configuration.sampleRate }

    /// gRPC's errors as `GoogleSpeechError`; others (ours, cancellation) unchanged.
    package static func userFacing(_ error: any Error, configuration: GoogleSpeechConfiguration, audioBytes: Int) -> any Error {
        switch error {
        case let error as RPCError:
            return GoogleSpeechError.from(error, audioBytes: audioBytes, scrubbing: configuration.credentials.secret.redact)
        case let error as RuntimeError:
            // The transport could not be made (a name no resolver takes, say).
            return GoogleSpeechError.unavailable(message: GoogleSpeechError.clause(configuration.credentials.secret.redact(error.message)))
        default:
            return error
        }
    }

    package static func run(
        _ configuration: GoogleSpeechConfiguration, text: AsyncStream<String>,
        audio: @escaping @Sendable (Data) async throws -> Void
    ) async throws {
        let address = try configuration.address()
        let transport = try HTTP2ClientTransport.Posix(
            target: .dns(host: address.host, port: address.port),
            transportSecurity: address.usesTLS ? .tls : .plaintext,
            config: .defaults { config in
                config.http2.targetWindowSize = configuration.flowControlWindow
            })
        var options = CallOptions.defaults
        options.timeout = configuration.timeout
        let request = StreamingClientRequest<Google_Cloud_Texttospeech_V1_StreamingSynthesizeRequest>(
            metadata: metadata(configuration)
        ) { writer in
            try await writer.write(.with { $0.streamingConfig = streamingConfig(configuration) })
            for await piece in text where !piece.isEmpty {
                try await writer.write(.with { $0.input.text = piece })
            }
        }
        try await withGRPCClient(transport: transport) { client in
            let service = Google_Cloud_Texttospeech_V1_TextToSpeech.Client(wrapping: client)
            try await service.streamingSynthesize(request: request, options: options) { response in
                for try await message in response.messages where !message.audioContent.isEmpty {
                    try await audio(message.audioContent)
                }
            }
        }
    }

    /// The first request: voice, language and the audio wanted.
    static func streamingConfig(_ configuration: GoogleSpeechConfiguration) -> Google_Cloud_Texttospeech_V1_StreamingSynthesizeConfig {
        .with { config in
            config.voice.name = configuration.voiceName
            config.voice.languageCode = configuration.languageCode
            config.streamingAudioConfig.audioEncoding = .pcm
            config.streamingAudioConfig.sampleRateHertz = Int32(clamping: configuration.sampleRate)
            config.streamingAudioConfig.speakingRate = configuration.speakingRate
        }
    }

    /// The credentials as Google's front end reads them, and the quota project when one is named.
    static func metadata(_ configuration: GoogleSpeechConfiguration) -> Metadata {
        var metadata = Metadata()
        switch configuration.credentials {
        case .apiKey(let key): metadata.addString(key.secret, forKey: "x-goog-api-key")
        case .accessToken(let token): metadata.addString("Bearer \(token.secret)", forKey: "authorization")
        }
        if let project = configuration.quotaProject { metadata.addString(project, forKey: "x-goog-user-project") }
        return metadata
    }
}
