import Foundation
import Testing
@testable import ChorusServer

/// The stream-input session's bounded text: the reading loop is held back once `limit` bytes wait.
@Suite struct PendingTextTests {
    /// Whether a writer is still held (its flag not raised) after other tasks have had time to run; a
    /// writer that should be held stays held however long this waits.
    private func isHeld(_ flag: Flag) async -> Bool {
        for _ in 0..<50 { await Task.yield() }
        try? await Task.sleep(for: .milliseconds(20))
        return !flag.isSet
    }

    /// A task putting `sentence`, and the flag it raises once `put` returns.
    private func writer(_ pending: PendingText, _ sentence: String) -> (task: Task<Void, Never>, returned: Flag) {
        let returned = Flag()
        let task = Task {
            await pending.put(sentence)
            returned.raise()
        }
        return (task, returned)
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var set = false
        var isSet: Bool { lock.withLock { set } }
        func raise() { lock.withLock { set = true } }
    }

    @Test func aWriterWaitsOnceTheLimitWaitsAndGoesOnWhenTheReaderTakesText() async {
        let pending = PendingText(limit: 10)
        await pending.put("12345")  // 5 bytes wait: below the limit, returns at once
        #expect(pending.waiting == 5)
        let (writer, returned) = writer(pending, "6789012")  // 12 bytes wait: held
        #expect(await isHeld(returned))
        #expect(pending.waiting == 12)
        #expect(await pending.next() == "12345")  // 7 bytes wait: the writer goes on
        await writer.value
        #expect(returned.isSet)
        #expect(await pending.next() == "6789012")
        #expect(pending.waiting == 0)
    }

    /// A client that always keeps text waiting: the sentences already spoken are not kept.
    @Test func takenSentencesAreDroppedWhileTextKeepsWaiting() async {
        let pending = PendingText(limit: 1 << 20)
        await pending.put("sentence 0")
        for index in 1...1000 {
            await pending.put("sentence \(index)")
            #expect(await pending.next() == "sentence \(index - 1)")
        }
        #expect(pending.waiting == "sentence 1000".utf8.count)
        #expect(pending.held <= 2)
    }

    @Test func aReaderWaitingGetsTheNextSentenceAtOnce() async {
        let pending = PendingText(limit: 4)
        let reader = Task { await pending.next() }
        for _ in 0..<50 { await Task.yield() }
        await pending.put("a long sentence, past the limit")  // handed to the waiting reader, nothing waits
        #expect(await reader.value == "a long sentence, past the limit")
        #expect(pending.waiting == 0)
    }

    @Test func finishingLetsTheWriterGoAndTheReaderTakesWhatWaitsThenNil() async {
        let pending = PendingText(limit: 3)
        let (writer, returned) = writer(pending, "one")
        #expect(await isHeld(returned))
        pending.finish()
        await writer.value
        await pending.put("dropped")
        #expect(await pending.next() == "one")
        #expect(await pending.next() == nil)
    }

    @Test func cancellingEndsEitherWait() async {
        let pending = PendingText(limit: 1)
        let (writer, returned) = writer(pending, "held")
        #expect(await isHeld(returned))
        writer.cancel()
        await writer.value
        #expect(returned.isSet)
        let empty = PendingText(limit: 1)
        let reader = Task { await empty.next() }
        for _ in 0..<50 { await Task.yield() }
        reader.cancel()
        #expect(await reader.value == nil)
    }
}
