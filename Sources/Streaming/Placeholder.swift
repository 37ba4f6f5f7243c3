// Streaming
