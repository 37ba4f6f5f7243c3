#!/usr/bin/env python3
"""Writes what wetext and CosyVoice's text front end make of a fixed corpus, for Chorus's tests.

Output (JSON, UTF-8, keys sorted):
  Tests/TextTestData/wetext/normalize.golden.json
      per corpus text: wetext's language pick, the tagger's output, the reordered tokens and the
      normalised text, from the real wetext (0.1.8) on kaldifst (1.8.3).
  Tests/ChorusCosyVoiceTests/Resources/frontend/frontend.golden.json
      per corpus text: the pieces upstream's `CosyVoiceFrontEnd.text_normalize(text, split=True)` gives and the
      text `text_normalize(text, split=False)` gives, both with wetext (upstream's front end when wetext imports)
      and without any normaliser (when neither ttsfrd nor wetext is there); upstream's `spell_out_number` on
      number strings (inflect 7.6.0) and `split_paragraph` on fixed texts; the upstream commit and versions.

CosyVoice's front end is upstream's own code: FunAudioLLM/CosyVoice at make_upstream.UPSTREAM_COMMIT
(`cosyvoice/cli/frontend.py` `CosyVoiceFrontEnd.text_normalize`, `cosyvoice/utils/frontend_utils.py`), imported
from the checkout COSYVOICE names. The front end is made without its __init__, which loads the speech models the
text path never touches; the attributes text_normalize reads are set as __init__ sets them (the tokenizer of
cosyvoice3.yaml, `get_qwen_tokenizer(version="cosyvoice3")`, over the Qwen2 vocabulary of Tests/TextTestData/qwen2,
as make_upstream_frontend.py gives it: CosyVoice-BlankEN is Qwen2's vocabulary, and the corpus holds none of
CosyVoice's added special tokens; `allowed_special="all"`; `inflect.engine()`; wetext's `Normalizer(remove_erhua=
False)` for Chinese and `Normalizer()` for English, `text_frontend` "wetext", or "" for no normaliser).

Deterministic. Environment: scripts/testdata/cosyvoice/requirements-frontend.lock (make_upstream.py's environment,
scripts/testdata/cosyvoice/requirements.lock, plus wetext 0.1.8, kaldifst 1.8.3, inflect 7.6.0, tiktoken and numba
for upstream's imports); openai-whisper's sdist on sys.path as WHISPER (frontend.py imports whisper).
Usage: COSYVOICE=<checkout at UPSTREAM_COMMIT> MATCHA=<matcha-tts sdist> WHISPER=<openai-whisper sdist> \\
       make_wetext_goldens.py REPO_ROOT
"""
import importlib.metadata
import json
import os
import sys

import inflect
from wetext import Normalizer
from wetext import utils as wetext_utils

HERE = os.path.dirname(os.path.abspath(__file__))
for variable in ("COSYVOICE", "MATCHA", "WHISPER"):
    if not os.path.isdir(os.environ.get(variable, "")):
        sys.exit(f"{variable} must name a folder: see this script's header")
sys.path.insert(0, os.environ["WHISPER"])
sys.path.insert(0, os.path.join(HERE, "cosyvoice"))
from make_upstream import UPSTREAM_COMMIT  # noqa: E402  (puts COSYVOICE and MATCHA on the path)
from cosyvoice.cli.frontend import CosyVoiceFrontEnd  # noqa: E402
from cosyvoice.tokenizer.tokenizer import get_qwen_tokenizer  # noqa: E402
from cosyvoice.utils.frontend_utils import spell_out_number, split_paragraph  # noqa: E402

CORPUS = [
    # Chinese: numbers, dates, times, money, percentages, fractions, measures, phones, years, decimals
    "今天是2024年3月5日，星期二。",
    "会议定于2023-11-08上午9:30开始。",
    "他出生于1998年，今年26岁。",
    "这件衣服原价¥299，现在打8折。",
    "价格是￥12.5元，增长了25%。",
    "我的电话是13812345678，请在下午3点前打给我。",
    "请拨打010-62345678转分机123。",
    "全班有3/4的同学通过了考试。",
    "温度降到了-5℃，风速12m/s。",
    "这个房间的面积是35㎡。",
    "他跑了10km，用时1小时25分钟。",
    "圆周率约等于3.14159。",
    "比分是3:2，主队赢了。",
    "第1名获得1000000元奖金。",
    "这本书有1,234页。",
    "2008年北京奥运会于8月8日晚8点开幕。",
    "列车将于14:05:30到达。",
    "他的体重是70.5kg，身高1.80m。",
    "截至12月31日，销售额同比增长-3.5%。",
    "请在5分钟内完成第2题和第3题。",
    "我有2个苹果和3个梨。",
    "地址是中关村大街27号。",
    "GDP增长了6.5%，达到100万亿元。",
    "这辆车的价格是$25,000。",
    "时间是晚上11:59。",
    "1/2加1/3等于5/6。",
    "身份证号码后四位是1234。",
    "今年是2025年。",
    "他考了99.5分。",
    "共有12345678人参加。",
    "0.5公斤等于500克。",
    "气温在-10到5度之间。",
    "这款手机售价4999元起。",
    "第三季度营收为3.2亿美元。",
    "周一到周五9:00-18:00营业。",
    "123",
    "2024",
    "这是一段没有数字的中文。",
    "你好，世界！",
    "他说：“我明天来。”然后就走了。",
    "（注意）这里有【重点】内容。",
    "这是第一句。这是第二句！这是第三句？",
    "面积为5m²，体积为3m³。",
    "iPhone 15 Pro 的价格是7999元。",
    "我用 Python 3.12 写代码。",
    "5G网络覆盖了90%的城市。",
    "他在2019年获得了MBA学位，年薪50万。",
    "A股今天上涨了1.23%。",
    "COVID-19疫情始于2019年底。",
    "会议室在3楼305房间。",
    "这是一个测试 - 只是测试。",
    "句子结尾有逗号，",
    "很多很多标点符号！！！？？？",
    "版本号是v2.3.1。",
    "电话：400-800-8888。",
    "2024/05/20是个好日子。",
    "他于2020.01.15入职。",
    "零下3摄氏度。",
    "我有1只猫、2只狗和3条鱼。",
    "最长的中文句子需要被切分，因为它超过了八十个字符的限制，所以我们在这里写了很多很多的字，"
    "一直写到超过限制为止，然后看看切分的结果是否和上游一致，这句话应该足够长了吧，再加一点点内容就好了。"
    "第二句话也很长，包含数字123和456，用来测试合并逻辑是否正确。短句。",
    # English: numbers, dates, times, money, ordinals, decimals, negatives, measures, phones, years
    "I have 3 apples and 12 oranges.",
    "The meeting is on Jan 5, 2024 at 3:30 pm.",
    "It costs $3.50 in total.",
    "The price rose by 25% last year.",
    "She was born in 1987.",
    "The temperature dropped to -5 degrees.",
    "Call me at 555-123-4567.",
    "He finished 1st in the race and 22nd overall.",
    "Pi is approximately 3.14159.",
    "The distance is 10 km, or about 6.2 miles.",
    "We need 1/2 cup of sugar.",
    "The population is 7,900,000,000.",
    "Flight UA 857 departs at 11:45.",
    "Dr. Smith lives at 221B Baker St.",
    "The year 2000 problem was overblown.",
    "I paid $1,299.99 for the laptop.",
    "Chapter 11 begins on page 204.",
    "It is 0.5 mm thick.",
    "There were 1000000 visitors.",
    "The score was 3-2 after 90 minutes.",
    "Version 2.0 ships on 2024-06-01.",
    "Hello world, this text has no digits at all.",
    "Wait... what? Really!",
    "It's 5 o'clock somewhere.",
    "The room is 20m² in size.",
    "I was born on the 4th of July, 1976.",
    "Mr. and Mrs. Jones have 2 kids.",
    "The stock fell 2.5 percent to $45.",
    "Temperatures hit 100°F in July.",
    "He ran 26.2 miles in 3 hours.",
    "Order #4521 was shipped.",
    "Use 2 tbsp of oil and 500 g of flour.",
    "My number is 867-5309, call me!",
    "The 1990s were great; the 2000s were better.",
    "Call 911 now.",
    "There are 365 days in a year: 12 months, 52 weeks.",
    "He said \"I will come at 7.\" Then he left.",
    "A very long English paragraph is needed to test how the front end splits text into pieces. "
    "It keeps going with several sentences, each of them adding a few more tokens to the count. "
    "The splitter measures English in tokens, not characters, and packs sentences until the limit. "
    "When a piece would pass eighty tokens and already holds more than sixty, a new piece starts. "
    "Short tail.",
    "42",
    "",
    "   ",
    "!!!",
    "Mixed 中文 and English with 3 numbers.",
    "OK",
    "e.g. 3.5 vs 3,5",
]

SPELL_NUMBERS = ["0", "00", "007", "1", "01", "5", "10", "11", "13", "19", "20", "21", "40", "99", "100", "101",
                 "110", "115", "200", "999", "1000", "1001", "1010", "1100", "1234", "2000", "2024", "10000",
                 "10001", "100000", "100001", "1000000", "1000001", "1234567", "1000000000", "987654321012",
                 "1000000000000", "123456789012345678901234567890123456", "1" + "0" * 36, "٣", "١٢", "²", "0001000", "٠٠٠5"]

SPLIT_CASES = [
    ("zh", "一句话。"),
    ("zh", "没有标点"),
    ("zh", "第一句。第二句！第三句？第四句；第五句：第六句、第七句.第八句?第九句!第十句;"),
    ("zh", "他说：“好。”她说：“不好。”"),
    ("zh", "引号\"测试。\"后面"),
    ("zh", "。开头就是句号"),
    ("zh", "。。。"),
    ("zh", "短。" * 50),
    ("zh", "这是一个很长的句子" * 8 + "。" + "尾巴。"),
    ("zh", "这是一个很长的句子" * 8 + "。" + "这是另一个很长的句子" * 3 + "。"),
    ("zh", "逗号，不会，切分，" * 12 + "。"),
    ("en", "One sentence."),
    ("en", "no punctuation at all"),
    ("en", "First. Second? Third! Fourth; Fifth: sixth"),
    ("en", "He said \"yes.\" She said \"no.\""),
    ("en", "Short. " * 100),
    ("en", "This is a fairly long sentence that carries quite a few tokens in it. " * 12 + "Tail."),
    ("en", "This is a fairly long sentence that carries quite a few tokens in it. " * 12 + "A tail of some length."),
    ("en", "Comma, separated, clauses, " * 15 + "end."),
]


def upstream_frontend(root, normalised):
    """upstream's CosyVoiceFrontEnd with what its __init__ gives the text path (see the header); `normalised`:
    wetext as upstream's front end takes it, else no normaliser."""
    frontend = object.__new__(CosyVoiceFrontEnd)
    frontend.tokenizer = get_qwen_tokenizer(os.path.join(root, "Tests/TextTestData/qwen2"), skip_special_tokens=True,
                                            version="cosyvoice3")
    frontend.allowed_special = "all"
    frontend.inflect_parser = inflect.engine()
    if normalised:
        frontend.zh_tn_model = Normalizer(remove_erhua=False)
        frontend.en_tn_model = Normalizer()
    frontend.text_frontend = "wetext" if normalised else ""
    return frontend


def main():
    root = sys.argv[1]
    normalizer = Normalizer(remove_erhua=False)
    fronts = {"wetext": upstream_frontend(root, True), "plain": upstream_frontend(root, False)}
    tokenizer = fronts["plain"].tokenizer

    def tokenize(text):
        return tokenizer.encode(text, allowed_special="all")

    wetext_cases = []
    for text in CORPUS:
        prepared = text.strip()
        lang = wetext_utils.get_lang(prepared)
        case = {"text": text, "language": lang}
        if wetext_utils.should_normalize(prepared, lang, "tn"):
            tagged = wetext_utils.tag(prepared, lang, "tn")
            case["tagged"] = tagged
            if tagged:
                case["reordered"] = wetext_utils.reorder(tagged, lang, "tn")
        try:
            case["normalized"] = normalizer.normalize(text)
        except AssertionError:
            # The tagger found no path (it prints nothing) and the token parser refuses empty text.
            case["error"] = "AssertionError"
        wetext_cases.append(case)
    folder = os.path.join(root, "Tests/TextTestData/wetext")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "normalize.golden.json"), "w", encoding="utf-8") as f:
        json.dump({"wetext": "0.1.8", "kaldifst": "1.8.3", "cases": wetext_cases}, f, ensure_ascii=False,
                  indent=1, sort_keys=True)
        f.write("\n")

    frontend_cases = []
    for text in CORPUS:
        case = {"text": text}
        for key, frontend in fronts.items():
            try:
                case[key] = {"pieces": frontend.text_normalize(text, split=True),
                             "prompt": frontend.text_normalize(text, split=False)}
            except (IndexError, AssertionError) as error:
                # IndexError: split_paragraph reads text[-1] of a text that normalised to nothing.
                # AssertionError: wetext's tagger has no path for the text (see above).
                case[key] = {"error": type(error).__name__}
        frontend_cases.append(case)
    engine = fronts["plain"].inflect_parser
    numbers = []
    for number in SPELL_NUMBERS:
        try:
            numbers.append({"digits": number, "words": spell_out_number(number, engine)})
        except inflect.NumOutOfRangeError:
            numbers.append({"digits": number, "error": "NumOutOfRangeError"})
    splits = [{"language": lang, "text": text, "pieces": list(split_paragraph(text, tokenize, lang))}
              for lang, text in SPLIT_CASES]
    folder = os.path.join(root, "Tests/ChorusCosyVoiceTests/Resources/frontend")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "frontend.golden.json"), "w", encoding="utf-8") as f:
        versions = {name: importlib.metadata.version(name) for name in ("inflect", "wetext", "kaldifst", "transformers",
                                                                        "tokenizers", "tiktoken")}
        json.dump({"inflect": "7.6.0", "upstream": f"FunAudioLLM/CosyVoice@{UPSTREAM_COMMIT}", "versions": versions,
                   "cases": frontend_cases, "numbers": numbers, "splits": splits}, f,
                  ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(CORPUS)} texts, {len(numbers)} numbers, {len(splits)} splits")


if __name__ == "__main__":
    main()
