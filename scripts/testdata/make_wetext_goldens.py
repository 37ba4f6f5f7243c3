#!/usr/bin/env python3
"""Writes what wetext and CosyVoice's text front end make of a fixed corpus, for Chorus's tests.

Output (JSON, UTF-8, keys sorted):
  Tests/TextTestData/wetext/normalize.golden.json
      per corpus text: wetext's language pick, the tagger's output, the reordered tokens and the
      normalised text, from the real wetext (0.1.8) on kaldifst (1.8.3).
  Tests/ChorusCosyVoiceTests/Resources/frontend/frontend.golden.json
      per corpus text: the pieces CosyVoice's `text_normalize(text, split=True)` gives and the text
      `text_normalize(text, split=False)` gives, both with wetext and without any normaliser; plus
      spell_out_number on number strings (inflect 7.6.0) and split_paragraph on fixed texts.

CosyVoice's front end is restated below from FunAudioLLM/CosyVoice (`cosyvoice/cli/frontend.py`
`CosyVoiceFrontEnd.text_normalize`, `cosyvoice/utils/frontend_utils.py`), as facts, in this script's
own words. English pieces are measured in tokens of the Qwen2 tokenizer in Tests/TextTestData/qwen2
(CosyVoice-BlankEN is Qwen2's vocabulary; the corpus holds none of CosyVoice's added special tokens,
so they do not change any count).

Deterministic. Needs `pip install wetext==0.1.8 kaldifst==1.8.3 inflect==7.6.0 regex tokenizers`.
Usage: make_wetext_goldens.py REPO_ROOT
"""
import json
import os
import re
import sys

import inflect
import regex
from wetext import Normalizer
from wetext import utils as wetext_utils

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_tokenizer_golden import reference  # noqa: E402

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


# --- CosyVoice's front end, restated ---------------------------------------------------------------

def contains_chinese(text):
    """True when a code point lies in U+4E00..U+9FFF."""
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def replace_blank(text):
    """A space survives only between two ASCII characters that are not spaces; the neighbours are the
    code points before and after it (Python's index -1 wraps to the last code point)."""
    out = []
    for i, c in enumerate(text):
        if c != " ":
            out.append(c)
            continue
        after, before = text[i + 1], text[i - 1]
        if after.isascii() and after != " " and before.isascii() and before != " ":
            out.append(c)
    return "".join(out)


def replace_corner_mark(text):
    """Superscript two and three become the words for square and cube."""
    return text.replace("²", "平方").replace("³", "立方")


def remove_bracket(text):
    """Full-width round and lenticular brackets and backticks disappear; a double em dash becomes a space."""
    for old, new in (("（", ""), ("）", ""), ("【", ""), ("】", ""), ("`", ""), ("——", " ")):
        text = text.replace(old, new)
    return text


def spell_out_number(text, engine):
    """Each maximal run of str.isdigit() code points becomes inflect's number_to_words of the run."""
    out, start = [], None
    for i, c in enumerate(text):
        if c.isdigit():
            if start is None:
                start = i
            continue
        if start is not None:
            out.append(engine.number_to_words(text[start:i]))
            start = None
        out.append(c)
    if start is not None:
        out.append(engine.number_to_words(text[start:]))
    return "".join(out)


def split_paragraph(text, tokenize, lang, token_max_n=80, token_min_n=60, merge_len=20, comma_split=False):
    """Upstream's splitter: close the text with a full stop when it does not end on a sentence mark, cut
    after every sentence mark (taking a closing quote right after it along), then pack the sentences
    greedily: a piece is closed when adding the next sentence would pass token_max_n and the piece already
    passes token_min_n; a last piece shorter than merge_len joins the one before. Chinese is measured in
    code points, other text in tokens."""
    def length(t):
        return len(t) if lang == "zh" else len(tokenize(t))

    marks = ["。", "？", "！", "；", "：", "、", ".", "?", "!", ";"] if lang == "zh" else [".", "?", "!", ";", ":"]
    if comma_split:
        marks += ["，", ","]
    if text[-1] not in marks:
        text += "。" if lang == "zh" else "."
    sentences, start = [], 0
    for i, c in enumerate(text):
        if c not in marks:
            continue
        if i > start:
            sentences.append(text[start:i] + c)
        if i + 1 < len(text) and text[i + 1] in ['"', "”"]:
            sentences.append(sentences.pop() + text[i + 1])
            start = i + 2
        else:
            start = i + 1
    pieces, current = [], ""
    for sentence in sentences:
        if length(current + sentence) > token_max_n and length(current) > token_min_n:
            pieces.append(current)
            current = ""
        current += sentence
    if current:
        if length(current) < merge_len and pieces:
            pieces[-1] += current
        else:
            pieces.append(current)
    return pieces


def is_only_punctuation(text):
    """Empty, or every code point punctuation (P*) or a symbol (S*)."""
    return regex.fullmatch(r"^[\p{P}\p{S}]*$", text) is not None


def text_normalize(text, split, normalizer, engine, tokenize):
    """CosyVoiceFrontEnd.text_normalize without ttsfrd: `normalizer` is wetext's Normalizer or None."""
    if ("<|" in text and "|>" in text) or text == "":
        return [text] if split else text
    text = text.strip()
    if contains_chinese(text):
        if normalizer is not None:
            text = normalizer.normalize(text)
        text = text.replace("\n", "")
        text = replace_blank(text)
        text = replace_corner_mark(text)
        text = text.replace(".", "。")
        text = text.replace(" - ", "，")
        text = remove_bracket(text)
        text = re.sub(r"[，,、]+$", "。", text)
        texts = split_paragraph(text, tokenize, "zh")
    else:
        if normalizer is not None:
            text = normalizer.normalize(text)
        text = spell_out_number(text, engine)
        texts = split_paragraph(text, tokenize, "en")
    texts = [t for t in texts if not is_only_punctuation(t)]
    return texts if split else text


def main():
    root = sys.argv[1]
    normalizer = Normalizer(remove_erhua=False)
    engine = inflect.engine()
    qwen = reference(os.path.join(root, "Tests/TextTestData/qwen2"), "qwen2")

    def tokenize(text):
        return qwen.encode(text).ids

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
        for key, tn in (("wetext", normalizer), ("plain", None)):
            try:
                case[key] = {"pieces": text_normalize(text, True, tn, engine, tokenize),
                             "prompt": text_normalize(text, False, tn, engine, tokenize)}
            except (IndexError, AssertionError) as error:
                # IndexError: split_paragraph reads text[-1] of a text that normalised to nothing.
                # AssertionError: wetext's tagger has no path for the text (see above).
                case[key] = {"error": type(error).__name__}
        frontend_cases.append(case)
    numbers = []
    for number in SPELL_NUMBERS:
        try:
            numbers.append({"digits": number, "words": engine.number_to_words(number)})
        except inflect.NumOutOfRangeError:
            numbers.append({"digits": number, "error": "NumOutOfRangeError"})
    splits = [{"language": lang, "text": text, "pieces": split_paragraph(text, tokenize, lang)}
              for lang, text in SPLIT_CASES]
    folder = os.path.join(root, "Tests/ChorusCosyVoiceTests/Resources/frontend")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "frontend.golden.json"), "w", encoding="utf-8") as f:
        json.dump({"inflect": "7.6.0", "cases": frontend_cases, "numbers": numbers, "splits": splits}, f,
                  ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(CORPUS)} texts, {len(numbers)} numbers, {len(splits)} splits")


if __name__ == "__main__":
    main()
