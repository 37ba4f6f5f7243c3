import Foundation
import ChorusModels
import Testing
@testable import ChorusText

/// Writes small graphs in OpenFst's vector/standard binary layout, so the reader and the search can be
/// tested on cases built by hand.
struct FSTBytes {
    struct Arc { var input: Int32; var output: Int32; var weight: Float; var target: Int32 }
    var states: [(final: Float, arcs: [Arc])]
    var start: Int64 = 0
    var fstType = "vector"
    var arcType = "standard"
    var version: Int32 = 2
    var magic: Int32 = WeightedFST.magic

    var data: Data {
        var data = Data()
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func put(_ string: String) { put(Int32(string.utf8.count)); data.append(contentsOf: Array(string.utf8)) }
        put(magic); put(fstType); put(arcType); put(version)
        put(Int32(0)); put(UInt64(3)); put(start); put(Int64(states.count)); put(Int64(0))
        for state in states {
            put(state.final.bitPattern)
            put(Int64(state.arcs.count))
            for arc in state.arcs {
                put(arc.input); put(arc.output); put(arc.weight.bitPattern); put(arc.target)
            }
        }
        return data
    }

    static func byte(_ character: Character) -> Int32 { Int32(character.asciiValue!) }
}

@Suite("WeightedFST: OpenFst file reading and one-best search")
struct WeightedFSTTests {
    /// Reads "ab" as "x" or as "y" at the same weight, and "a" alone as "ez" through an input epsilon.
    /// kaldifst 1.8.3 gives "y" for "ab" and "ez" for "a" on this graph (checked when it was written).
    static let tieGraph = FSTBytes(states: [
        (.infinity, [.init(input: 0, output: FSTBytes.byte("e"), weight: 5, target: 3),
                     .init(input: FSTBytes.byte("a"), output: FSTBytes.byte("x"), weight: 0.5, target: 1),
                     .init(input: FSTBytes.byte("a"), output: FSTBytes.byte("y"), weight: 0.5, target: 2)]),
        (.infinity, [.init(input: FSTBytes.byte("b"), output: 0, weight: 0.5, target: 4)]),
        (.infinity, [.init(input: FSTBytes.byte("b"), output: 0, weight: 0.5, target: 4)]),
        (.infinity, [.init(input: FSTBytes.byte("a"), output: FSTBytes.byte("z"), weight: 0, target: 4)]),
        (0, []),
    ])

    @Test func readsTheGraph() throws {
        let fst = try WeightedFST(data: Self.tieGraph.data, name: "tie.fst")
        #expect(fst.stateCount == 5)
        #expect(fst.arcCount == 6)
        #expect(fst.start == 0)
        #expect(fst.inputLabelSorted)
    }

    /// OpenFst relaxes states in the topological order of a depth-first search, which reaches the branch
    /// of the later arc first; an equal path found afterwards does not replace it.
    @Test func equalPathsResolveAsOpenFstDoes() throws {
        let fst = try WeightedFST(data: Self.tieGraph.data, name: "tie.fst")
        #expect(try fst.bestOutput(for: "ab") == "y")
    }

    @Test func followsInputEpsilons() throws {
        let fst = try WeightedFST(data: Self.tieGraph.data, name: "tie.fst")
        #expect(try fst.bestOutput(for: "a") == "ez")
    }

    @Test func cheaperPathWins() throws {
        var graph = Self.tieGraph
        graph.states[1].arcs[0].weight = 0.25
        let fst = try WeightedFST(data: graph.data, name: "tie.fst")
        #expect(try fst.bestOutput(for: "ab") == "x")
    }

    @Test func unacceptedInputThrows() throws {
        let fst = try WeightedFST(data: Self.tieGraph.data, name: "tie.fst")
        #expect(throws: WeightedFSTError.noPath(path: "tie.fst", input: "abc")) { try fst.bestOutput(for: "abc") }
    }

    @Test func missingFileNamesThePath() {
        let url = URL(fileURLWithPath: "/nonexistent/chorus/tagger.fst")
        #expect(throws: WeightedFSTError.missingFile(path: url.path)) { try WeightedFST(contentsOf: url) }
    }

    @Test func truncatedFileNamesTheFile() throws {
        let data = Self.tieGraph.data
        for length in [0, 3, 20, 60, data.count - 1] {
            #expect {
                try WeightedFST(data: data.prefix(length), name: "cut.fst")
            } throws: { error in
                guard case .truncated(let path, _, _) = error as? WeightedFSTError else { return false }
                return path == "cut.fst" && "\(error)".contains("cut.fst")
            }
        }
    }

    @Test func truncatedFileOnDiskNamesThePath() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-\(UUID().uuidString).fst")
        defer { try? FileManager.default.removeItem(at: url) }
        try Self.tieGraph.data.dropLast(5).write(to: url)
        #expect {
            try WeightedFST(contentsOf: url)
        } throws: { error in
            guard case .truncated(let path, _, _) = error as? WeightedFSTError else { return false }
            return path == url.path
        }
    }

    @Test func wrongMagicIsNotAnFST() {
        var graph = Self.tieGraph
        graph.magic = 1234
        #expect(throws: WeightedFSTError.notAnFST(path: "x.fst")) { try WeightedFST(data: graph.data, name: "x.fst") }
    }

    @Test func otherTypesAreUnsupported() {
        var graph = Self.tieGraph
        graph.fstType = "const"
        #expect(throws: WeightedFSTError.self) { try WeightedFST(data: graph.data, name: "x.fst") }
        graph = Self.tieGraph
        graph.arcType = "log"
        #expect(throws: WeightedFSTError.self) { try WeightedFST(data: graph.data, name: "x.fst") }
    }

    @Test func arcToMissingStateIsCorrupt() {
        var graph = Self.tieGraph
        graph.states[1].arcs[0].target = 9
        #expect {
            try WeightedFST(data: graph.data, name: "x.fst")
        } throws: { error in
            guard case .corrupt(let path, _) = error as? WeightedFSTError else { return false }
            return path == "x.fst"
        }
    }

    @Test func trailingBytesAreCorrupt() {
        var data = Self.tieGraph.data
        data.append(0)
        #expect(throws: WeightedFSTError.self) { try WeightedFST(data: data, name: "x.fst") }
    }

    @Test(.enabled(if: InstalledWeText.installed, InstalledWeText.reason))
    func installedTaggerCutShortFails() throws {
        let file = InstalledWeText.folder.appendingPathComponent("zh/tn/tagger.fst")
        let data = try Data(contentsOf: file)
        #expect {
            try WeightedFST(data: data.prefix(data.count / 2), name: file.path)
        } throws: { error in
            guard case .truncated(let path, _, _) = error as? WeightedFSTError else { return false }
            return path == file.path
        }
    }

    @Test func missingGrammarFolderSaysWhichFile() {
        let folder = URL(fileURLWithPath: "/nonexistent/wetext")
        #expect(throws: WeTextNormalizer.manifest.missing(folder.path + "/zh/tn/tagger.fst")) {
            try WeTextNormalizer(folder: folder)
        }
    }
}
