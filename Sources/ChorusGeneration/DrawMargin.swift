import Foundation

/// How far one draw of a `TokenSampler` lies from changing, measured on the logits the sampler was given (before
/// any test perturbation): for each boundary the draw depends on, the least e such that moving every logit by at
/// most e times M could carry it across, to first order. M is the largest finite |logit| of the tokens the
/// quantity is computed over (as scripts/testdata/draw_margins.py measures it: the candidates for a draw among
/// them and for top-p over them, every token for the cut of a top-k over every token and for a draw or top-p mass
/// over every token). A golden of sampled tokens whose draws all keep e draws the same tokens under any change of
/// the logits smaller than e M: another CPU, thread count or runtime.
///
/// The kinds are the generators' (draw_margins.py, cosyvoice/margins.py). A gap between two logits (order, top-k)
/// moves by at most 2 e M, so its margin is the gap over 2 M. A cumulative probability S (draw, redraw, top-p)
/// moves by at most 2 e M S (1 - S) (each probability p_i changes by p_i (d_i - sum_j p_j d_j)), so its margin is
/// its distance over 2 M S (1 - S): the exact first-order bound, which the generators' distance over 2 M (their
/// record) never exceeds.
public struct DrawMargin: Sendable, Equatable, CustomStringConvertible {
    /// A boundary a draw depends on.
    public enum Kind: String, Sendable, CaseIterable, Comparable {
        /// The uniform's place between the cumulative probabilities on either side of the chosen token.
        case draw
        /// The chosen token's logit against the nearest other value among candidates ordered by value (equal
        /// values keep their order by index, so a tie is no boundary).
        case order
        /// A top-k cut: the k-th value against the next lower one.
        case topK
        /// A top-p cut: the nearest cumulative probability the cut tested against p.
        case topP
        /// A second draw over every token (CosyVoice's repetition-aware redraw): the uniform's place.
        case redraw

        public static func < (a: Kind, b: Kind) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    /// Each kind's margin (the least, where a kind was measured twice).
    public var kinds: [Kind: Double]

    public init(kinds: [Kind: Double] = [:]) {
        self.kinds = kinds
    }

    /// The draw's margin: its least kind's (infinity when nothing could change it, as a single candidate).
    public var least: Double { kinds.values.min() ?? .infinity }

    public var description: String {
        kinds.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \(String(format: "%.3g", $0.value))" }
            .joined(separator: ", ")
    }
}

/// One draw's analysis while its steps run (set on `SamplingState.analysis` by a `TokenSampler` that measures):
/// the margins the steps note, and which logits to move, and which way, to shrink the least of them.
final class DrawAnalysis {
    var margin = DrawMargin()
    /// The logits the model gave, before any step: two candidates the steps made equal (a repetition penalty
    /// bringing one down onto another) differ here, and any change of these can part them.
    let raw: [Float]
    /// A top-k cut's margin waiting for the steps after it: a top-p over every token's mass that then keeps fewer
    /// than k makes the cut irrelevant to the draw (upstream CosyVoice's nucleus sampling stops at whichever comes
    /// first), so it is noted only when the draw is reached with the cut still in force.
    private var pendingTopK: (value: Double, largest: Largest, up: [Int], down: [Int])?
    /// Tokens whose logits move up, and down, to close the least margin noted so far.
    private(set) var up: [Int] = []
    private(set) var down: [Int] = []
    /// The token whose |logit| is that margin's M, so the perturbation can move the logits as given by e M.
    private(set) var anchor: Int?
    private var least = Double.infinity

    init(raw: [Float]) {
        self.raw = raw
    }

    /// Keeps a top-k cut's margin until `commitTopK` (the draw) or `dropTopK` (a later cut that decides instead).
    func holdTopK(_ value: Double, largest: Largest, up: [Int], down: [Int]) {
        pendingTopK = (value, largest, up, down)
    }

    /// The held top-k cut no longer decides the draw.
    func dropTopK() {
        pendingTopK = nil
    }

    /// Notes the held top-k cut, if any.
    func commitTopK() {
        guard let cut = pendingTopK else { return }
        pendingTopK = nil
        note(.topK, cut.value, largest: cut.largest) { (cut.up, cut.down) }
    }

    /// The largest finite |logit| among some tokens, and a token that has it.
    struct Largest {
        var value = 0.0
        var token: Int?
    }

    /// Notes a margin of `kind`, measured in units of `largest`; `direction` (the tokens to move up and down to
    /// shrink it) is asked for only when it is the least so far.
    func note(_ kind: DrawMargin.Kind, _ value: Double, largest: Largest, direction: () -> (up: [Int], down: [Int])) {
        guard !value.isNaN else { return }
        margin.kinds[kind] = min(margin.kinds[kind] ?? .infinity, value)
        if value < least {
            least = value
            anchor = largest.token
            (up, down) = direction()
        }
    }

    /// The largest finite |logit| among `tokens` (0 when none is finite).
    static func largest(_ logits: UnsafeMutableBufferPointer<Float>, of tokens: some Sequence<Int>) -> Largest {
        var top = Largest()
        for token in tokens where logits[token].isFinite && Double(abs(logits[token])) > top.value {
            top = Largest(value: Double(abs(logits[token])), token: token)
        }
        return top
    }

    /// The margin of a cumulative probability `share` (of the distribution's total) at `distance` from what it
    /// is compared with, for logits moving by at most e M: infinite at 0 and 1, which no change moves.
    static func cumulative(distance: Double, share: Double, largest: Largest) -> Double {
        let spread = 2 * largest.value * share * (1 - share)
        return spread > 0 ? max(0, distance) / spread : .infinity
    }

    /// The margin of a gap between two logits.
    static func gap(_ gap: Double, largest: Largest) -> Double {
        largest.value > 0 ? gap / (2 * largest.value) : .infinity
    }

    /// Notes the draw (or redraw) of `order[chosen]` with `uniform`, walking `order` with `weight`, and, when the
    /// order is by value, the chosen token's order margin.
    func noteDraw(_ kind: DrawMargin.Kind, logits: UnsafeMutableBufferPointer<Float>, order: [Int], chosen: Int,
                  uniform: Double, weight: (Int) -> Double) {
        var total = 0.0
        var before = 0.0
        for (position, token) in order.enumerated() {
            if position == chosen { before = total }
            total += weight(token)
        }
        guard total > 0 else { return }
        let lower = before / total
        let upper = (before + weight(order[chosen])) / total
        let largest = Self.largest(logits, of: order)
        let token = order[chosen]
        // Candidates equal to the chosen one in the model's own logits move with it, so they keep their order.
        let together = { (other: Int) in other != token && logits[other] == logits[token] && self.raw[other] == self.raw[token] }
        note(kind, Self.cumulative(distance: uniform - lower, share: lower, largest: largest), largest: largest) {
            // The cumulative before the chosen token rises towards the uniform.
            (order[..<chosen].filter { !together($0) }, order[chosen...] + order[..<chosen].filter(together))
        }
        note(kind, Self.cumulative(distance: upper - uniform, share: upper, largest: largest), largest: largest) {
            // The cumulative up to the chosen token falls towards the uniform.
            (order[(chosen + 1)...].filter { !together($0) }, order[...chosen] + order[(chosen + 1)...].filter(together))
        }
        guard kind == .draw, zip(order, order.dropFirst()).allSatisfy({ logits[$0.0] >= logits[$0.1] }) else { return }
        let value = logits[order[chosen]]
        // A tie the steps made from two different logits of the model is a boundary: any change parts them, and
        // which comes first then moves the chosen token's cumulative by the other's whole share.
        if let made = order.first(where: { $0 != token && logits[$0] == value && raw[$0] != raw[token] }) {
            note(.order, 0, largest: largest) {
                order.firstIndex(of: made)! < chosen ? ([token], [made]) : ([made], [token])
            }
            return
        }
        var nearest: Float?
        for token in order where logits[token] != value && logits[token].isFinite {
            if nearest.map({ abs(logits[token] - value) < abs($0 - value) }) ?? true { nearest = logits[token] }
        }
        guard let nearest else { return }
        note(.order, Self.gap(Double(abs(nearest - value)), largest: largest), largest: largest) {
            let tied = order.filter { logits[$0] == value }
            let others = order.filter { logits[$0] == nearest }
            return nearest > value ? (tied, others) : (others, tied)
        }
    }

    /// Moves each logit of the least margin's direction by `size` times that margin's M, up or down (non-finite
    /// ones stay). `logits` are the model's, before the steps: M is the anchor's |logit| there, so a temperature
    /// (every logit divided alike) leaves the move e M where the margin was measured; a penalised anchor makes it
    /// up to the penalty's factor larger, never smaller.
    func perturb(_ logits: UnsafeMutableBufferPointer<Float>, size: Float) {
        guard let anchor, logits[anchor].isFinite else { return }
        let move = abs(logits[anchor]) * size
        for token in up where logits[token].isFinite { logits[token] += move }
        for token in down where logits[token].isFinite { logits[token] -= move }
    }
}

/// The margins of every draw the samplers made in a task record (`DrawMarginLog.$active`), in order.
public final class DrawMarginLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [DrawMargin] = []

    public init() {}

    /// The log samplers made in this task append to (nil: none measures).
    @TaskLocal public static var active: DrawMarginLog? = nil

    /// Every draw's margins so far.
    public var margins: [DrawMargin] { lock.withLock { recorded } }

    func append(_ margin: DrawMargin) {
        lock.withLock { recorded.append(margin) }
    }
}
