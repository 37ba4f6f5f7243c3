import Foundation

/// The Chinese dialects CosyVoice 3 speaks when told to, and the instruction that tells it.
///
/// Upstream does dialects with `inference_instruct2`: the LLM's prompt is
/// `You are a helpful assistant. 请用广东话表达。<|endofprompt|>` (its README's Cantonese example) in place
/// of the clip's transcript, and the flow still clones the clip's timbre. The list is the one Alibaba's
/// CosyVoice v3 documentation gives for that instruction ("请用广东话表达。（支持的方言：广东话、东北话、...）"),
/// with 湖南话 (Hunan), which upstream's own instruction list has as well.
public enum Dialect: String, CaseIterable, Sendable {
    case cantonese, northeastern, gansu, guizhou, henan, hubei, hunan, jiangxi, minnan, ningxia, shanxi, shaanxi,
         shandong, shanghainese, sichuanese, tianjin, yunnan

    /// The dialect's name as the instruction says it.
    public var chineseName: String {
        switch self {
        case .cantonese: "广东话"
        case .northeastern: "东北话"
        case .gansu: "甘肃话"
        case .guizhou: "贵州话"
        case .henan: "河南话"
        case .hubei: "湖北话"
        case .hunan: "湖南话"
        case .jiangxi: "江西话"
        case .minnan: "闽南话"
        case .ningxia: "宁夏话"
        case .shanxi: "山西话"
        case .shaanxi: "陕西话"
        case .shandong: "山东话"
        case .shanghainese: "上海话"
        case .sichuanese: "四川话"
        case .tianjin: "天津话"
        case .yunnan: "云南话"
        }
    }

    /// A BCP 47 tag for the voice catalog: the dialects with their own ISO 639-3 code get it
    /// (Cantonese `yue`, Min Nan `nan`, Wu `wuu`, Xiang `hsn` for Hunan), the others are Mandarin varieties, `zh`.
    public var languageTag: String {
        switch self {
        case .cantonese: "yue"
        case .minnan: "nan"
        case .shanghainese: "wuu"
        case .hunan: "hsn"
        default: "zh"
        }
    }

    /// What the LLM is told: `请用<name>表达。`.
    public var instruction: String { "请用\(chineseName)表达。" }

    /// The dialect named `name`: its English name (`cantonese`) or its Chinese one (`广东话`).
    public init?(name: String) {
        let key = name.trimmingCharacters(in: .whitespaces).lowercased()
        guard let found = Self.allCases.first(where: { $0.rawValue == key || $0.chineseName == key }) else { return nil }
        self = found
    }
}
