import Testing
import SpeechRecognition

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
