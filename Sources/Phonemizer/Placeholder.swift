// Phonemizer
