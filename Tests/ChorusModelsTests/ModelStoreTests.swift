@testable import ChorusModels
import Foundation
import Testing

@Suite struct ModelStoreTests {
    @Test func chorusModelsComesFirst() {
        let store = ModelStore(environment: ["CHORUS_MODELS": "/srv/models", "XDG_CACHE_HOME": "/xdg", "HOME": "/home/a"])
        #expect(store.root.path == "/srv/models")
        #expect(store.folder(named: "kokoro").path == "/srv/models/kokoro")
    }

    @Test func anEmptyChorusModelsIsIgnored() {
        let store = ModelStore(environment: ["CHORUS_MODELS": "", "HOME": "/home/a"])
        #expect(store.root.path != "")
        #expect(store.root.path.hasSuffix("chorus/models"))
    }

    @Test func theCacheRootFollowsXDGThenHome() {
        func root(_ environment: [String: String]) -> String {
            ModelStore.cacheRoot(environment: environment, home: URL(fileURLWithPath: "/account")).path
        }
        #expect(root(["XDG_CACHE_HOME": "/xdg", "HOME": "/home/a"]) == "/xdg/chorus/models")
        // The XDG spec: a relative or empty XDG_CACHE_HOME is ignored.
        #expect(root(["XDG_CACHE_HOME": "relative/cache", "HOME": "/home/a"]) == "/home/a/.cache/chorus/models")
        #expect(root(["XDG_CACHE_HOME": "", "HOME": "/home/a"]) == "/home/a/.cache/chorus/models")
        #expect(root(["HOME": "/home/a"]) == "/home/a/.cache/chorus/models")
        #expect(root([:]) == "/account/.cache/chorus/models")
    }

    #if !canImport(Darwin)
    /// Without CHORUS_MODELS, Linux keeps today's default (`~/.cache/chorus/models`) unless XDG says otherwise.
    @Test func linuxUsesTheCacheRoot() {
        #expect(ModelStore(environment: ["HOME": "/home/a"]).root.path == "/home/a/.cache/chorus/models")
        #expect(ModelStore(environment: ["XDG_CACHE_HOME": "/c", "HOME": "/home/a"]).root.path == "/c/chorus/models")
    }
    #else
    @Test func applePlatformsUseApplicationSupport() {
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        #expect(ModelStore(environment: [:]).root.path == support.appendingPathComponent("chorus/models").path)
    }
    #endif

    @Test func theCurrentStoreReadsThisProcess() {
        let environment = ProcessInfo.processInfo.environment
        #expect(ModelStore.current == ModelStore(environment: environment))
    }
}
