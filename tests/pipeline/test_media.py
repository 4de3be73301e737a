"""Images and documents as the API counts them (context_compact/media.py, issue 51).

At a854c46 the character measure counted an image by its base64: a 40 KB PNG screenshot is
53,516 characters, over the default's 50,000, though the API counts it as 18 tokens; so the
screenshot was summarized away before the model saw it, and the summarizer was sent the
base64 itself. Now an image counts as its tokens (width x height / 750, scaled down to the
API's maximum first) times CHARS_PER_TOKEN characters, a PDF by its pages, under both
measures (the offline server's `count_tokens` too); a summarizer is sent a text naming each
one instead. The sizes come from the images' headers, checked here against Pillow's files.
"""

import base64
import io
import json
import random
import zlib

import pytest
from PIL import Image

from compact_course.offline import MODEL_NAME
from context_compact import CompactionConfig, ContextCompactor, TokenMeasure, estimate_chars, formats
from context_compact.messages import text_of, tool_results
from tests.helpers import RecordingSummarizer, call, make_compactor, offline_model, user

REQUEST = "What is wrong on this screen?"


def picture(width: int, height: int, fmt: str = "PNG", noise: bool = True, **options) -> bytes:
    """An image file made by Pillow: noise, so that a PNG is as large as a screenshot's."""
    count = width * height * 3
    pixels = random.Random(width * height).randbytes(count) if noise else bytes(count)
    out = io.BytesIO()
    Image.frombytes("RGB", (width, height), pixels).save(out, fmt, **options)
    return out.getvalue()


def image_block(data: bytes, media_type: str = "image/png") -> dict:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                        "data": base64.b64encode(data).decode()}}


SCREENSHOT = image_block(picture(104, 128))   # 40,137 bytes: 53,516 characters of base64


@pytest.mark.parametrize("fmt, options", [("PNG", {}), ("GIF", {}), ("JPEG", {})])
def test_an_images_size_is_read_from_its_header(fmt, options):
    # here, so that the module loads at a854c46 and its other tests run
    from context_compact import media as rule
    for size in ((1280, 801), (3, 4000), (17, 5)):
        assert rule.image_size(picture(*size, fmt, noise=False, **options)) == size
    assert rule.image_size(b"not an image") is None


def test_a_webp_counts_as_unknown_the_largest():   # its size is not read (context_compact/media.py)
    from context_compact import media as rule
    assert rule.image_size(picture(17, 5, "WEBP", noise=False)) is None
    assert rule.image_tokens(None) == rule.IMAGE_MAX_TOKENS


def test_a_jpeg_past_its_metadata_and_fill_bytes():
    from context_compact import media as rule
    exif = Image.Exif()
    exif[0x010E] = "a description " * 2_000   # 28 KB of metadata before the frame
    data = picture(640, 480, "JPEG", noise=False, exif=exif.tobytes())
    assert rule.image_size(data) == (640, 480)
    assert rule.image_size(data[:2] + b"\xff" + data[2:]) == (640, 480)   # a fill byte before a marker


def test_the_apis_rule_for_images_and_pdfs():
    from context_compact import media as rule
    # The vision docs' table: 200x200 ~54, 1000x1000 ~1334, 1092x1092 ~1590 tokens; larger is scaled down.
    assert [rule.image_tokens(size) for size in ((200, 200), (1000, 1000), (1092, 1092))] == [54, 1334, 1590]
    assert rule.image_tokens((4000, 3000)) == rule.image_tokens((8000, 6000)) == rule.IMAGE_MAX_TOKENS
    assert rule.image_tokens((1568, 100)) == 210 and rule.image_tokens((3136, 200)) == 210   # long edge
    assert rule.image_tokens(None) == rule.IMAGE_MAX_TOKENS   # a size not read: the largest
    pages = b"".join(b"%d 0 obj <</Type /Page /Parent 2 0 R>> endobj\n" % n for n in range(3, 6))
    plain = b"%PDF-1.4\n2 0 obj <</Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3>> endobj\n" + pages
    packed = zlib.compress(b"<</Type/Page/Parent 2 0 R>> <</Type/Page/Parent 2 0 R>>")
    streamed = (b"%PDF-1.5\n7 0 obj <</Type /ObjStm /N 2 /First 9 /Filter /FlateDecode /Length "
                + str(len(packed)).encode() + b">> stream\n" + packed + b"\nendstream\nendobj\n")
    assert rule.pdf_pages(plain) == 3 and rule.pdf_pages(streamed) == 2 and rule.pdf_pages(b"junk") == 1
    assert rule.pdf_pages(streamed * 3) == 6 and rule.pdf_pages(streamed.replace(b"\r", b"")) == 2
    assert rule.pdf_pages(streamed.replace(b"endstream", b"")) == 1   # a stream with no end: not read


def test_the_pages_of_a_pdf_pillow_wrote():
    from context_compact import media as rule
    out = io.BytesIO()
    frames = [Image.new("RGB", (60, 80), colour) for colour in ("red", "green", "blue", "white")]
    frames[0].save(out, "PDF", save_all=True, append_images=frames[1:])
    assert rule.pdf_pages(out.getvalue()) == 4


def test_the_screenshot_is_18_tokens_not_53516_characters():
    from context_compact import media as rule
    assert len(SCREENSHOT["source"]["data"]) == 53_516
    message = user([{"type": "text", "text": REQUEST}, SCREENSHOT])
    raw = len(json.dumps([message], ensure_ascii=False))
    assert rule.image_tokens(rule.image_size(picture(104, 128))) == 18
    assert estimate_chars([message]) == raw - 53_516 + 18 * rule.CHARS_PER_TOKEN
    two_pages = base64.b64encode(b"%PDF-1.4 /Type /Page /Type /Page").decode()
    pdf = {"type": "document",
           "source": {"type": "base64", "media_type": "application/pdf", "data": two_pages}}
    text_doc = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x" * 900}}
    both = user([pdf, text_doc, {"type": "text", "text": "read them"}])
    assert estimate_chars([both]) == len(json.dumps([both])) - len(pdf["source"]["data"]) \
        + 2 * rule.PAGE_TOKENS * rule.CHARS_PER_TOKEN   # a text document is its text
    by_url = user([{"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}])
    largest = rule.IMAGE_MAX_TOKENS * rule.CHARS_PER_TOKEN
    assert estimate_chars([by_url]) == len(json.dumps([by_url])) + largest


@pytest.mark.parametrize("profile", ["seed", "default"])
def test_a_screenshot_over_the_limit_in_characters_reaches_the_model_whole(tmp_path, profile):
    """Through the real SDK against the offline server: what goes out holds the image byte for byte,
    and no summary is asked for (at a854c46 step 4 summarized it away, base64 and all)."""
    summarizer, sent = RecordingSummarizer(), []

    def record(request, call_next):   # what really goes out
        if request.url.split("?")[0] == "/v1/messages":
            sent.append(request.json["messages"])
        return call_next(request)

    compactor = make_compactor(tmp_path, profile, summarizer)
    messages = [user([{"type": "text", "text": REQUEST}, SCREENSHOT])]
    assert len(json.dumps(messages)) > compactor.config.context_char_limit
    with offline_model() as (_, client):
        client = client.with_options(middleware=[*client.middleware, record])
        reply = client.messages.create(model=MODEL_NAME, max_tokens=500,
                                       messages=compactor.prepare(messages, REQUEST))
    assert sent == [messages] and summarizer.calls == [] and compactor.store.written == []
    assert reply.usage.input_tokens < 200   # the server counts it by its pixels too
    assert compactor.records[-1].chars_after == estimate_chars(messages) < 1_000


def test_a_summarizer_is_sent_a_text_naming_each_image_never_its_base64(tmp_path):
    summarizer = RecordingSummarizer()
    page = image_block(picture(300, 200, "JPEG"), "image/jpeg")
    rendered = [{"type": "text", "text": "the page as rendered"}, page]
    shot_in_result = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": rendered}]}
    messages = [user([{"type": "text", "text": REQUEST}, SCREENSHOT]), call({"toolu_01": "x"})[0],
                shot_in_result]
    out = make_compactor(tmp_path, summarizer=summarizer).compact_history(messages, REQUEST)
    sent = json.dumps(summarizer.calls)
    assert SCREENSHOT["source"]["data"][:200] not in sent and "/9j/" not in sent   # no PNG, no JPEG base64
    first, result = summarizer.calls[0][0]["content"][1]["text"], summarizer.calls[0][2]["content"][0]
    assert first == "[image image/png, 104x128, 40,137 bytes at messages[0].content[1]: not summarized]"
    assert text_of(result["content"]).startswith("the page as rendered\n[image image/jpeg, 300x200, ")
    assert messages[0]["content"][1] is SCREENSHOT and messages[2] is shot_in_result   # untouched
    transcript = formats.SUMMARY_RE.match(out[0]["content"])["path"]
    saved = [json.loads(line) for line in (tmp_path / transcript).read_text().splitlines()]
    assert saved == messages   # the transcript keeps the images whole


def test_the_client_summarizer_sends_the_offline_model_no_base64(tmp_path):
    """The package's own summarizer (client= and model=), through the SDK: the request holds no base64."""
    asked = []

    def record(request, call_next):
        asked.append(json.dumps(request.json))
        return call_next(request)

    with offline_model() as (_, client):
        client = client.with_options(middleware=[*client.middleware, record])
        compactor = ContextCompactor(tmp_path, client=client, model=MODEL_NAME)
        compactor.compact_history([user([{"type": "text", "text": REQUEST}, SCREENSHOT])], REQUEST)
    assert len(asked) == 1 and SCREENSHOT["source"]["data"][:200] not in asked[0]
    assert "image image/png, 104x128, 40,137 bytes" in asked[0]


def test_step_1_saves_a_results_text_and_leaves_every_image_in_context(tmp_path):
    """A user's own image is their input, never a tool output: step 1 never moves it. An image in a
    tool result stays too (the API counts it by its pixels); only the result's text is saved."""
    big = "log line\n" * 30_000
    batch = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01",
         "content": [{"type": "text", "text": big}, SCREENSHOT]},
        {"type": "text", "text": "and here is my screen"}, SCREENSHOT]}
    messages = [user(REQUEST), call({"toolu_01": "x"})[0], batch]
    out = make_compactor(tmp_path).tool_result_budget(messages)
    content = tool_results(out[2])[0]["content"]
    assert formats.PERSISTED_RE.match(content[0]["text"]) and content[1] == SCREENSHOT
    assert out[2]["content"][1:] == batch["content"][1:]   # the user's own image: in context, whole
    saved = (tmp_path / formats.persisted_path(content[0]["text"])).read_text()
    assert saved == big   # the text alone: no base64 on disk


def test_the_token_measure_counts_an_image_by_its_pixels(tmp_path):
    """The offline server's `count_tokens`, as the API's, counts the image as its 18 tokens."""
    with offline_model() as (_, client):
        measure = TokenMeasure(client, MODEL_NAME)
        shot = [user([{"type": "text", "text": REQUEST}, SCREENSHOT])]
        plain = [user([{"type": "text", "text": REQUEST}])]
        assert 18 <= measure(shot) - measure(plain) <= 40   # the image, and the few words naming it
        compactor = ContextCompactor(tmp_path, RecordingSummarizer(), measure=measure,
                                     config=CompactionConfig(context_token_limit=2_000))
        assert compactor.prepare(shot, REQUEST) == shot
