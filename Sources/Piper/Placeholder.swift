// Piper
