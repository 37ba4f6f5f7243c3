import Foundation

/// A change to an ONNX model's graph made on its serialised bytes, before the runtime reads them: one value
/// the graph computes is capped, element by element, by a new float input the caller feeds with each run.
///
/// The bytes are read and written at the protobuf wire level with onnx.proto's field numbers (ModelProto.graph
/// 7; GraphProto.node 1 and input 11; NodeProto.input 1, output 2, name 3, op_type 4; ValueInfoProto.name 1
/// and type 2; TypeProto.tensor_type 1; TypeProto.Tensor.elem_type 1, FLOAT being 1, and shape 2;
/// TensorShapeProto.dim 1; Dimension.dim_param 2), so no schema is
/// generated and everything else in the model, its weights among them, is copied through untouched. The
/// node that gives the value now gives `<value>/uncapped`, and a `Min` of that and the new input, written
/// right after it so the graph stays in topological order, gives the value to every node that read it.
/// Fed +infinity, the input leaves every element as it was, so one edited graph serves runs with and
/// without a cap. Kokoro uses it to shorten the quiet its pad tokens make (`KokoroSynthesizer`).
public struct ModelGraphEdit: Sendable, Equatable {
    /// The value capped: the name of a float tensor some node of the graph outputs.
    public var value: String
    /// The new graph input holding the cap (float, broadcast against `value` as `Min` broadcasts).
    public var capInput: String
    /// The cap's number of dimensions, each of any size (named `<capInput>_0`, `<capInput>_1`, ...).
    public var capRank: Int

    public init(capping value: String, by capInput: String, rank: Int) {
        self.value = value
        self.capInput = capInput
        capRank = rank
    }

    /// The name the value's own node gives it in the edited graph.
    public var uncappedValue: String { value + "/uncapped" }

    /// `model` (a serialised ONNX ModelProto) with the edit made. Throws `OnnxRuntimeError.graphEdit` naming
    /// `modelPath` when the bytes are not a model, no node gives `value`, or `capInput` is taken.
    public func applied(to model: [UInt8], modelPath: String) throws -> [UInt8] {
        func failed(_ why: String) -> OnnxRuntimeError { .graphEdit(model: modelPath, value: value, reason: why) }
        var edited: [UInt8] = []
        edited.reserveCapacity(model.count + 256)
        var graphs = 0
        var reader = WireReader(bytes: model[...])
        while let field = try reader.next(failed) {
            guard field.number == 7, field.type == .lengthDelimited else {
                edited += model[field.whole]
                continue
            }
            graphs += 1
            WireWriter.message(7, try editedGraph(model[field.payload], failed), into: &edited)
        }
        guard graphs == 1 else { throw failed("the file holds \(graphs) graphs, not one ONNX model") }
        return edited
    }

    /// The graph's fields with the value's node renamed and the `Min` after it, and the new input last.
    private func editedGraph(_ graph: ArraySlice<UInt8>, _ failed: (String) -> OnnxRuntimeError) throws -> [UInt8] {
        var edited: [UInt8] = []
        edited.reserveCapacity(graph.count + 256)
        var producers = 0
        var reader = WireReader(bytes: graph)
        while let field = try reader.next(failed) {
            switch (field.number, field.type) {
            case (1, .lengthDelimited):
                let node = graph[field.payload]
                let outputs = try Self.strings(node, field: 2, failed)
                guard outputs.contains(value) else {
                    edited += graph[field.whole]
                    continue
                }
                producers += 1
                WireWriter.message(1, try renamingOutput(of: node, failed), into: &edited)
                WireWriter.message(1, capNode(), into: &edited)
            case (11, .lengthDelimited):
                let input = graph[field.payload]
                if try Self.strings(input, field: 1, failed).contains(capInput) {
                    throw failed("the graph already has an input named \(capInput)")
                }
                edited += graph[field.whole]
            default:
                edited += graph[field.whole]
            }
        }
        guard producers == 1 else { throw failed("\(producers) nodes give it, where one should") }
        WireWriter.message(11, capInputInfo(), into: &edited)
        return edited
    }

    /// `node` with `value` among its outputs renamed to `uncappedValue`, every other field as it was.
    private func renamingOutput(of node: ArraySlice<UInt8>, _ failed: (String) -> OnnxRuntimeError) throws -> [UInt8] {
        var edited: [UInt8] = []
        var reader = WireReader(bytes: node)
        while let field = try reader.next(failed) {
            if field.number == 2, field.type == .lengthDelimited, Array(node[field.payload]) == Array(value.utf8) {
                WireWriter.string(2, uncappedValue, into: &edited)
            } else {
                edited += node[field.whole]
            }
        }
        return edited
    }

    /// NodeProto: Min(uncapped, cap) -> value.
    private func capNode() -> [UInt8] {
        var node: [UInt8] = []
        WireWriter.string(1, uncappedValue, into: &node)
        WireWriter.string(1, capInput, into: &node)
        WireWriter.string(2, value, into: &node)
        WireWriter.string(3, "chorus_cap/" + value, into: &node)
        WireWriter.string(4, "Min", into: &node)
        return node
    }

    /// ValueInfoProto: the cap input, a float tensor of `capRank` symbolic dimensions.
    private func capInputInfo() -> [UInt8] {
        var shape: [UInt8] = []
        for index in 0..<capRank {
            var dimension: [UInt8] = []
            WireWriter.string(2, "\(capInput)_\(index)", into: &dimension)
            WireWriter.message(1, dimension, into: &shape)
        }
        var tensor: [UInt8] = []
        WireWriter.varint(1, 1, into: &tensor)
        WireWriter.message(2, shape, into: &tensor)
        var type: [UInt8] = []
        WireWriter.message(1, tensor, into: &type)
        var info: [UInt8] = []
        WireWriter.string(1, capInput, into: &info)
        WireWriter.message(2, type, into: &info)
        return info
    }

    /// The strings in field `number` of a message.
    private static func strings(_ message: ArraySlice<UInt8>, field number: Int,
                                _ failed: (String) -> OnnxRuntimeError) throws -> [String] {
        var found: [String] = []
        var reader = WireReader(bytes: message)
        while let field = try reader.next(failed) {
            if field.number == number, field.type == .lengthDelimited {
                found.append(String(decoding: message[field.payload], as: UTF8.self))
            }
        }
        return found
    }
}

/// Protobuf's wire format read field by field: each field's number, type, payload and whole extent.
private struct WireReader {
    enum WireType: UInt64 { case varint = 0, fixed64 = 1, lengthDelimited = 2, fixed32 = 5 }

    struct Field {
        var number: Int
        var type: WireType
        var payload: Range<Int>
        var whole: Range<Int>
    }

    let bytes: ArraySlice<UInt8>
    var index: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    /// The next field; nil at the end. Throws on a truncated field or a wire type protobuf no longer uses.
    mutating func next(_ failed: (String) -> OnnxRuntimeError) throws -> Field? {
        guard index < bytes.endIndex else { return nil }
        let start = index
        let key = try varint(failed)
        guard let type = WireType(rawValue: key & 7), key >> 3 > 0 else {
            throw failed("byte \(start - bytes.startIndex) of a message is not a protobuf field")
        }
        let payloadStart: Int
        let length: Int
        switch type {
        case .varint:
            payloadStart = index
            _ = try varint(failed)
            length = index - payloadStart
        case .fixed64:
            payloadStart = index
            length = 8
        case .fixed32:
            payloadStart = index
            length = 4
        case .lengthDelimited:
            let declared = try varint(failed)
            payloadStart = index
            guard declared <= UInt64(bytes.endIndex - index) else { throw failed("a field runs past the end of the file") }
            length = Int(declared)
        }
        guard length <= bytes.endIndex - payloadStart else { throw failed("a field runs past the end of the file") }
        index = payloadStart + length
        return Field(number: Int(key >> 3), type: type, payload: payloadStart..<index, whole: start..<index)
    }

    private mutating func varint(_ failed: (String) -> OnnxRuntimeError) throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.endIndex, shift < 64 {
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        throw failed("a number runs past the end of the file")
    }
}

/// Protobuf's wire format written field by field.
private enum WireWriter {
    static func varint(_ number: Int, _ value: UInt64, into out: inout [UInt8]) {
        raw(UInt64(number) << 3, into: &out)
        raw(value, into: &out)
    }

    static func string(_ number: Int, _ text: String, into out: inout [UInt8]) {
        message(number, Array(text.utf8), into: &out)
    }

    static func message(_ number: Int, _ payload: [UInt8], into out: inout [UInt8]) {
        raw(UInt64(number) << 3 | 2, into: &out)
        raw(UInt64(payload.count), into: &out)
        out += payload
    }

    private static func raw(_ value: UInt64, into out: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }
}
