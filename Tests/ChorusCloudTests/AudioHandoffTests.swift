import ChorusFiles
import ChorusModels
import Foundation
import ChorusStreaming
@testable import ChorusCloud
import Testing

@Suite struct AudioHandoffTests {
    @Test func theNetworkTaskWaitsUntilEachPieceIsTaken() async throws {
        let sent = Locked(0)
        var iterator = AudioHandoff.stream { send in
            for value in UInt8(0)..<5 {
                try await send(Data([value]))
                sent.withLock { $0 += 1 }
            }
        }.makeAsyncIterator()
        #expect(try await iterator.next() == Data([0]))
        #expect(try await iterator.next() == Data([1]))
        // The task may have handed over piece 2 and be waiting; it cannot have gone past it.
        #expect(sent.withLock { $0 } <= 2)
        var rest = Data()
        while let piece = try await iterator.next() { rest += piece }
        #expect(rest == Data([2, 3, 4]))
        #expect(sent.withLock { $0 } == 5)
    }

    @Test func anErrorOfTheNetworkTaskEndsTheStream() async throws {
        struct Broken: Error {}
        var iterator = AudioHandoff.stream { send in
            try await send(Data([7]))
            throw Broken()
        }.makeAsyncIterator()
        #expect(try await iterator.next() == Data([7]))
        await #expect(throws: Broken.self) { _ = try await iterator.next() }
    }

    @Test func droppingTheStreamCancelsTheNetworkTask() async throws {
        let (ended, signal) = AsyncStream<Bool>.makeStream()
        do {
            var iterator = AudioHandoff.stream { send in
                do {
                    while true { try await send(Data([1, 2])) }
                } catch {
                    signal.yield(error is CancellationError)
                    throw error
                }
            }.makeAsyncIterator()
            #expect(try await iterator.next() == Data([1, 2]))
        }
        var endings = ended.makeAsyncIterator()
        #expect(await endings.next() == true)
    }

    @Test func cancellingTheReaderCancelsTheNetworkTask() async throws {
        let (ended, signal) = AsyncStream<Bool>.makeStream()
        let stream = AudioHandoff.stream { send in
            do {
                try await send(Data([1]))
                try await Task.sleep(for: .seconds(600))
            } catch {
                signal.yield(error is CancellationError)
                throw error
            }
        }
        let reader = Task {
            var pieces = 0
            for try await _ in stream { pieces += 1 }
            return pieces
        }
        reader.cancel()
        _ = await reader.result
        var endings = ended.makeAsyncIterator()
        #expect(await endings.next() == true)
    }
}
