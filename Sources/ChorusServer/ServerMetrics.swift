import ChorusFiles
import Foundation
import Prometheus

/// What `/metrics` reports, in Prometheus' text format: requests and errors per route and status,
/// each engine's queue depth and whether it is loaded, time to first audio and real-time factor per engine,
/// connections open and closed for the caps, and the process's resident memory.
public final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()

    public init() {}

    /// Every 50 ms up to 2 s, where first audio is judged (within 1 s for Kokoro, 0.25 s for Piper),
    /// then coarser up to 20 s.
    static let firstAudioBuckets = (1...40).map { Double(50 * $0) / 1000 } + [2.5, 3, 4, 5, 7.5, 10, 20]
    /// Every 0.05 up to 1 (faster than real time), then coarser up to 5.
    static let realTimeFactorBuckets = (1...20).map { Double(5 * $0) / 100 } + [1.25, 1.5, 2, 3, 5]

    func countRequest(route: String, method: String, status: Int) {
        let labels = [("route", route), ("method", method), ("status", String(status))]
        registry.makeCounter(descriptor: Self.requests, labels: labels).increment()
        if status >= 400 {
            registry.makeCounter(descriptor: Self.errors, labels: labels).increment()
        }
    }

    func recordFirstAudio(engine: String, seconds: Double) {
        registry.makeValueHistogram(descriptor: Self.firstAudio, labels: [("engine", engine)], buckets: Self.firstAudioBuckets)
            .record(seconds)
    }

    /// Seconds spent making the audio per second of audio made.
    func recordRealTimeFactor(engine: String, synthesisSeconds: Double, audioSeconds: Double) {
        guard audioSeconds > 0 else { return }
        registry.makeValueHistogram(descriptor: Self.realTimeFactor, labels: [("engine", engine)], buckets: Self.realTimeFactorBuckets)
            .record(synthesisSeconds / audioSeconds)
    }

    func setQueueDepth(engine: String, _ depth: Int) {
        registry.makeGauge(descriptor: Self.queueDepth, labels: [("engine", engine)]).set(to: Double(depth))
    }

    func setOpenConnections(_ count: Int) {
        registry.makeGauge(descriptor: Self.openConnections).set(to: Double(count))
    }

    /// Connections the server closed to keep within its caps: `idle_displaced` (an idle one closed for a newer
    /// one), `address_full` (a new one whose address held its cap of busy ones).
    func countConnectionsClosed(reason: String, _ count: Int = 1) {
        registry.makeCounter(descriptor: Self.connectionsClosed, labels: [("reason", reason)]).increment(by: Int64(count))
    }

    /// Whether each engine is loaded now (`chorus_engine_loaded`), and the process's resident memory.
    func setLoaded(_ loaded: [(engine: String, isLoaded: Bool)]) {
        for (engine, isLoaded) in loaded {
            registry.makeGauge(descriptor: Self.engineLoaded, labels: [("engine", engine)]).set(to: isLoaded ? 1 : 0)
        }
        if let bytes = ResidentMemory.bytes() { registry.makeGauge(descriptor: Self.resident).set(to: Double(bytes)) }
    }

    /// The exposition text.
    func text() -> String { registry.emitToString() }

    private static var requests: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "chorus", metricName: "http_requests", unitName: "total", helpText: "HTTP requests answered, by route, method and status.") }
    private static var errors: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "chorus", metricName: "http_errors", unitName: "total", helpText: "HTTP requests answered with a status of 400 or more.") }
    private static var firstAudio: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "chorus", metricName: "time_to_first_audio", unitName: "seconds",
        helpText: "From the start of a synthesis to its first audio, per engine.") }
    private static var realTimeFactor: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "chorus", metricName: "real_time_factor", unitName: "ratio",
        helpText: "Synthesis time divided by the audio's duration, per finished request and engine.") }
    private static var openConnections: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "chorus", metricName: "open_connections", unitName: "count", helpText: "Connections open now, closing ones included.") }
    private static var connectionsClosed: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "chorus", metricName: "connections_closed_for_caps", unitName: "total",
        helpText: "Connections closed to keep within the connection caps, by reason: idle_displaced, address_full.") }
    private static var engineLoaded: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "chorus", metricName: "engine_loaded",
        helpText: "1 while an engine's models are loaded; engines unused for the idle time are unloaded.") }
    private static var resident: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "chorus", metricName: "resident_memory", unitName: "bytes", helpText: "The server process's resident memory.") }
    private static var queueDepth: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "chorus", metricName: "queue_depth", unitName: "requests",
        helpText: "Requests an engine holds, running or waiting.") }
}
