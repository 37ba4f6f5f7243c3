// Kokoro
