package behaviors

// CutPoints exposes the seeded cut offsets of sse-framing:variant=split.
var CutPoints = cutPoints

// FirstSentenceForTest exposes firstSentence to the external tests.
var FirstSentenceForTest = firstSentence
