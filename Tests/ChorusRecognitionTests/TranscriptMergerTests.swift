import Testing
@testable import ChorusRecognition

@Suite struct TranscriptMergerTests {
    let merger = TranscriptMerger()

    @Test func theLongestSharedRunIsWrittenOnce() {
        #expect(merger.merge("the cat sat on the", "sat on the mat") == "the cat sat on the mat")
        #expect(merger.merge("a b c", "c d") == "a b c d")
        #expect(merger.merge("", "new words") == "new words")
        #expect(merger.merge("old words", "") == "old words")
    }

    @Test func withoutSharedWordsTheTextsAreJoined() {
        #expect(merger.merge("one two", "three four") == "one two three four")
    }

    @Test func caseAndPunctuationDoNotHideTheOverlap() {
        #expect(merger.merge("We went home.", "home, and slept") == "We went home. and slept")
    }

    @Test func misheardEdgeWordsAreDropped() {
        // The old chunk ended mid-word ("ri" for "river"), the new one started mid-word ("ll" for "mill").
        #expect(merger.merge("we walked to the mill and the ri", "ll and the river ran")
                == "we walked to the mill and the river ran")
        #expect(merger.merge("we sat by the fire to", "ire by the fire to warm") == "we sat by the fire to warm")
    }

    @Test func aLoneCommonWordPastTheEdgeDoesNotSplice() {
        // "the" is shared only after skipping edge words: too weak, so the texts are joined.
        #expect(merger.merge("over the hill x", "y the river") == "over the hill x y the river")
    }
}

@Suite struct BoundedMergerTests {
    @Test func repeatedSpeechIsNotMatchedAWholeRepetitionBack() {
        // Old: the phrase and the start of its repeat; new: the repeat's start and more.
        let old = "one two three four five one two"
        let new = "one two three four five one two three"
        #expect(TranscriptMerger().merge(old, new) == "one two three four five one two three")
        // The audio overlap holds at most 3 words, so only "one two" can be shared.
        let bounded = TranscriptMerger(maximumOverlapWords: 3)
        #expect(bounded.merge(old, new) == "one two three four five one two three four five one two three")
        #expect(TranscriptMerger().bounded(toOverlapSeconds: 1.5).maximumOverlapWords == 8)
    }
}

/// Token ids follow the words through a merge, cut where the words are cut.
@Suite struct WordTokenTests {
    let pieces = PieceVocabulary(pieces: ["<unk>", "\u{2581}the", "\u{2581}cat", "\u{2581}sat", "\u{2581}he", "ed", "\u{2581}on"])

    @Test func idsAreCutAtTheWordsTheyDecodeTo() {
        #expect(pieces.wordTokens([1, 2, 4, 5, 6], words: ["the", "cat", "heed", "on"]) == [[1], [2], [4, 5], [6]])
        // A chunk that starts inside a word: its first run has no word start.
        #expect(pieces.wordTokens([5, 6], words: ["ed", "on"]) == [[5], [6]])
        // Ids that do not spell the words give none, rather than wrong ones.
        #expect(pieces.wordTokens([1, 2], words: ["the", "dog"]) == nil)
        #expect(pieces.wordTokens([1, 2], words: ["the"]) == nil)
    }

    @Test func spliceCutsIdsWithTheirWords() {
        let merger = TranscriptMerger()
        #expect(merger.splice(["the", "cat", "sat"], ["cat", "sat", "on"]) == (3, 2))
        // "xx" is a misheard edge word: dropped from the old text, the run "sat on" found after it.
        #expect(merger.splice(["the", "cat", "sat", "on", "xx"], ["sat", "on", "the", "mat"]) == (4, 2))
        #expect(merger.splice([], ["a"]) == (0, 0))

        var transcript = WordTranscript(text: "the cat sat", ids: [1, 2, 3], vocabulary: pieces)
        transcript.append(WordTranscript(text: "cat sat on", ids: [2, 3, 6], vocabulary: pieces), merger: merger)
        #expect(transcript.text == "the cat sat on")
        #expect(transcript.ids == [1, 2, 3, 6])
        transcript.append(WordTranscript(text: "heed", ids: [4, 5], vocabulary: pieces), merger: nil)
        #expect(transcript.ids == [1, 2, 3, 6, 4, 5])
        // Once a chunk's ids do not line up, the merged ids are dropped, the text kept.
        transcript.append(WordTranscript(text: "the dog", ids: [1, 2], vocabulary: pieces), merger: nil)
        #expect(transcript.text == "the cat sat on heed the dog")
        #expect(transcript.ids == [])
    }
}
