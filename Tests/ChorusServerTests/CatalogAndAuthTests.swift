@testable import ChorusServer
import ChorusModels
import ChorusSpeech
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct CatalogAndAuthTests {
    @Test func modelsAreOpenAIsListWithOneModelPerEngine() async throws {
        try await fakeServer().makeApplication().test(.router) { client in
            let response = try await client.execute(uri: "/v1/models", method: .get)
            #expect(response.status == .ok)
            let list = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            #expect(list?["object"] as? String == "list")
            let models = list?["data"] as? [[String: Any]] ?? []
            #expect(models.map { $0["id"] as? String } == ["fake", "fake22"])
            #expect(models.allSatisfy { $0["object"] as? String == "model" && $0["owned_by"] as? String == "chorus" })
            #expect(models.last?["sample_rate"] as? Int == 22_050)
        }
    }

    @Test func voicesListEveryLoadableEngineAndSayWhyOthersAreNot() async throws {
        let missing = testEngine("absent", name: "Absent", sampleRate: 16_000) {
            throw ModelError.missingFile(model: "absent", path: "/nowhere", remedy: "Install it.")
        }
        try await fakeServer(extra: [missing]).makeApplication().test(.router) { client in
            let response = try await client.execute(uri: "/v1/audio/voices", method: .get)
            #expect(response.status == .ok)
            struct Listing: Decodable {
                struct Unavailable: Decodable { var engine: String; var message: String }
                var voices: [Voice]
                var unavailable: [Unavailable]
            }
            let listing = try JSONDecoder().decode(Listing.self, from: Data(buffer: response.body))
            #expect(listing.voices.map(\.engine) == ["fake", "fake22"])
            #expect(listing.voices.first == Voice(id: "plain", engine: "fake", language: "en-US", gender: .unknown))
            #expect(listing.unavailable.map(\.engine) == ["absent"])
            #expect(listing.unavailable.first?.message == "The absent model is missing: /nowhere not found. Install it.")

            let one = try await client.execute(uri: "/v1/audio/voices?engine=fake22", method: .get)
            let only = try JSONDecoder().decode(Listing.self, from: Data(buffer: one.body))
            #expect(only.voices.map(\.engine) == ["fake22"])
            #expect(try await client.execute(uri: "/v1/audio/voices?engine=nope", method: .get).status == .notFound)
        }
    }

    @Test func speakingWithAnEngineThatIsNotInstalledIsA404SayingHowToInstallIt() async throws {
        let missing = testEngine("absent", name: "Absent", sampleRate: 16_000) {
            throw ModelError.missingFile(model: "absent", path: "/nowhere", remedy: "Install it.")
        }
        try await fakeServer(extra: [missing]).makeApplication().test(.router) { client in
            let response = try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                                    body: jsonBody(["model": "absent", "input": "Hi."]))
            #expect(response.status == .notFound)
            let error = try ErrorBody(response.body)
            #expect(error.error.code == "model_not_installed")
            #expect(error.error.message.hasSuffix("Install it."))
        }
    }

    @Test func healthSaysWhichEnginesAreLoaded() async throws {
        try await fakeServer().makeApplication().test(.router) { client in
            _ = try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                         body: jsonBody(["model": "fake22", "input": "Hi."]))
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            let health = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            #expect(health?["status"] as? String == "ok")
            let engines = health?["engines"] as? [String: [String: Any]]
            #expect(engines?["fake22"]?["loaded"] as? Bool == true)
            #expect(engines?["fake"]?["loaded"] as? Bool == false)
        }
    }

    @Test func withAKeyTheAPIWantsItAndThePageAndHealthDoNot() async throws {
        let server = fakeServer(ServerConfiguration(port: 0, apiKey: BearerKey("s3cret-key")))
        try await server.makeApplication().test(.router) { client in
            let none = try await client.execute(uri: "/v1/models", method: .get)
            #expect(none.status == .unauthorized)
            #expect(none.headers[.wwwAuthenticate] == "Bearer")
            #expect(try ErrorBody(none.body).error.type == "authentication_error")

            for wrong in ["Bearer s3cret-kez", "Bearer s3cret-key2", "Bearer s3cret", "Basic s3cret-key", "s3cret-key"] {
                let response = try await client.execute(uri: "/v1/audio/speech", method: .post,
                                                        headers: [.authorization: wrong, .contentType: "application/json"],
                                                        body: jsonBody(["model": "fake", "input": "Hi."]))
                #expect(response.status == .unauthorized)
                #expect(!String(buffer: response.body).contains("s3cret"))
            }
            let right = try await client.execute(uri: "/v1/models", method: .get, headers: [.authorization: "Bearer s3cret-key"])
            #expect(right.status == .ok)
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
        }
    }

    @Test func bearerKeysCompareWholeAndNeverPrint() {
        let key = BearerKey("abc123")!
        #expect(key.matches(authorization: "Bearer abc123"))
        #expect(key.matches(authorization: "bearer abc123"))
        #expect(!key.matches(authorization: "Bearer abc12"))
        #expect(!key.matches(authorization: "Bearer abc1234"))
        #expect(!key.matches(authorization: "Bearer abd123"))
        #expect(!key.matches(authorization: "Bearer "))
        #expect(!key.matches(authorization: nil))
        #expect("\(key)" == "***")
        #expect(String(reflecting: key) == "BearerKey(***)")
        #expect(BearerKey("  ") == nil)
    }
}
