#!/usr/bin/env python3
"""The web playground of `chorus serve` in a real headless Chromium, driven by Selenium.

    apt-get install chromium chromium-driver     # Debian's browser and its driver, nothing else
    pip install selenium
    swift build --product chorus
    python3 eval/playground_check.py [--engine piper] [--clone-engine cosyvoice] [--out DIR]

Starts `chorus serve` on a free 127.0.0.1 port with its history in a fresh temporary folder (or uses
--url), then, as a person would:
  1. loads the page: the engines and voices are listed;
  2. types a sentence and presses Ctrl+Enter: audio streams into Web Audio, the time to first audio
     is shown, and the <audio> element, played, advances through a non-zero duration;
  3. reloads the page: the history lists the sentence (engine, voice, duration, time);
  4. replays the entry from the history with the keyboard (Tab to its Play button, Enter);
  5. uploads a clip (a WAV the server itself spoke, with its words) in "Clone a voice": the voice
     is added, listed by GET /v1/audio/voices and offered in the voice list;
  6. records from the microphone into the clone form (a clip appears) and transcribes the clip (the
     transcript, or the server's sentence when no recogniser is installed, is printed as INFO);
  7. takes screenshots at each step, desktop and phone sized, into --out.
With --stand-in-cosyvoice the server runs over a models root of its own: the installed models linked in,
and as `cosyvoice` a copy of Tests/ChorusCosyVoiceTests/Resources/model, the test-size CosyVoice 3 made
from upstream's classes with random weights (the real cloning code, noise for speech), for machines
where CosyVoice's weights are not installed.
Each step prints PASS or FAIL with what it saw; the exit status is the number of failures. Chromium
runs with --use-fake-device-for-media-stream so the page's microphone gets a test tone. Nothing is
sent beyond the loopback.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = "The playground speaks while the audio streams in."
CLIP_WORDS = "This short clip becomes a new voice for the playground."


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Check:
    def __init__(self):
        self.failures = 0

    def __call__(self, name, ok, detail=""):
        print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
        if not ok:
            self.failures += 1
        return ok


def browser(size, phone=False):
    options = webdriver.ChromeOptions()
    if phone:
        # A window cannot be narrower than 500 px; a phone's screen is emulated instead.
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2}})
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--autoplay-policy=no-user-gesture-required",
                 "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", f"--window-size={size}",
                 "--disable-features=MediaRouter", "--no-first-run", "--disable-background-networking"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


def stand_in_models_root() -> str:
    """A models root: every installed model linked in, `cosyvoice` a copy of the test-size model."""
    installed = Path(os.environ.get("CHORUS_MODELS") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "chorus/models")
    root = Path(tempfile.mkdtemp(prefix="chorus-playground-models-"))
    if installed.is_dir():
        for entry in installed.iterdir():
            if entry.name != "cosyvoice" and not entry.name.startswith("."):
                (root / entry.name).symlink_to(entry.resolve())
    shutil.copytree(ROOT / "Tests/ChorusCosyVoiceTests/Resources/model", root / "cosyvoice")
    print(f"models root {root}: {sorted(p.name for p in root.iterdir())} (cosyvoice: the test-size model)", flush=True)
    return str(root)


def wait(driver, seconds, condition, what):
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.2).until(lambda d: condition(d))
    except TimeoutException:
        return None


def text_of(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chorus", default=str(ROOT / ".build/debug/chorus"))
    parser.add_argument("--url", help="use a running server instead of starting one")
    parser.add_argument("--engine", default="piper", help="the engine to speak with")
    parser.add_argument("--clone-engine", default="cosyvoice", help="the engine to clone a voice with")
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "chorus-playground-check"))
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait for one step (engines load on first use)")
    parser.add_argument("--stand-in-cosyvoice", action="store_true",
                        help="clone with the test-size CosyVoice model (see above) in a models root of the check's own")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    check = Check()

    server = None
    history = tempfile.mkdtemp(prefix="chorus-playground-history-")
    if args.url:
        url = args.url.rstrip("/")
    else:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log = open(out / "server.log", "w")
        environment = dict(os.environ)
        if args.stand_in_cosyvoice:
            environment["CHORUS_MODELS"] = stand_in_models_root()
        server = subprocess.Popen([args.chorus, "serve", "--host", "127.0.0.1", "--port", str(port), "--history-folder", history],
                                  stdout=log, stderr=subprocess.STDOUT, env=environment)
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("chorus serve did not start listening.")
    print(f"server {url}, screenshots in {out}", flush=True)

    driver = browser("1280,1400")
    try:
        # 1. The page loads and lists the engines and the chosen engine's voices.
        driver.get(url + "/")
        engines = wait(driver, 60, lambda d: [o.get_attribute("value") for o in Select(d.find_element(By.ID, "engine")).options] or None,
                       "engines")
        check("page lists engines", bool(engines), f"{engines}")
        if engines and args.engine in engines:
            Select(driver.find_element(By.ID, "engine")).select_by_value(args.engine)
        voices = wait(driver, args.timeout, lambda d: len(Select(d.find_element(By.ID, "voice")).options) > 1 and
                      not text_of(d, "speak-status").startswith("Loading"), "voices")
        check(f"{args.engine} voices listed", bool(voices),
              f"{len(Select(driver.find_element(By.ID, 'voice')).options) - 1} voices; status '{text_of(driver, 'speak-status')}'")
        driver.save_screenshot(str(out / "1-loaded.png"))

        # 2. Type a sentence, speak it with the keyboard, hear it while it streams.
        area = driver.find_element(By.ID, "text")
        area.clear()
        area.send_keys(SENTENCE)
        area.send_keys(Keys.CONTROL, Keys.ENTER)
        done = wait(driver, args.timeout, lambda d: text_of(d, "speak-status").startswith(("Done", "Not")) or
                    "error" in d.find_element(By.ID, "speak-status").get_attribute("class"), "speech")
        status = driver.find_element(By.ID, "speak-status")
        seconds = float(status.get_attribute("data-seconds") or 0)
        check("speech streamed into Web Audio", bool(done) and seconds > 0,
              f"status '{status.text}', first audio shown as {text_of(driver, 'first-audio')}")
        state = driver.execute_script("return window.__chorusAudioState && window.__chorusAudioState()")
        check("Web Audio scheduled the pieces", bool(state) and state["scheduled"] > 0 and state["contextState"] == "running",
              f"{state}")
        driver.save_screenshot(str(out / "2-spoken.png"))
        played = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const player = document.getElementById('player');
            const finish = () => done({duration: player.duration, currentTime: player.currentTime, paused: player.paused,
                                       ended: player.ended, error: player.error && player.error.message});
            player.currentTime = 0;
            player.play().then(() => setTimeout(finish, 1500)).catch((e) => done({error: String(e)}));
        """)
        check("<audio> plays a non-zero duration", bool(played) and (played.get("duration") or 0) > 0 and
              (played.get("currentTime") or 0) > 0, f"{played}")

        # 3. After a reload the history lists the sentence.
        wait(driver, 30, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#history-list li")) > 0, "history")
        driver.refresh()
        items = wait(driver, 60, lambda d: d.find_elements(By.CSS_SELECTOR, "#history-list li") or None, "history after reload")
        first = items[0].text if items else ""
        check("history shows the entry after a reload", SENTENCE in first, first.replace("\n", " | "))
        driver.save_screenshot(str(out / "3-history.png"))

        # 4. Replay the entry with the keyboard alone.
        play_button = driver.find_element(By.CSS_SELECTOR, "#history-list li button")
        driver.execute_script("arguments[0].focus()", play_button)
        check("Play button takes the focus", driver.switch_to.active_element == play_button)
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        replayed = wait(driver, 30, lambda d: d.execute_script(
            "const p = document.getElementById('player'); return p.currentTime > 0 && p.src.startsWith('blob:') ? p.duration : null"),
            "replay")
        check("history entry replays", bool(replayed) and replayed > 0, f"duration {replayed}")

        # 5. Clone a voice from an uploaded clip.
        clone_options = [o.get_attribute("value") for o in Select(driver.find_element(By.ID, "clone-engine")).options]
        if args.clone_engine not in clone_options:
            check("clone engine offered", False,
                  f"'{args.clone_engine}' not among cloning engines {clone_options}; help says '{text_of(driver, 'clone-help')}'")
        else:
            clip = out / "clip.wav"
            request = urllib.request.Request(url + "/v1/audio/speech", method="POST", headers={"Content-Type": "application/json"},
                                             data=json.dumps({"model": args.engine, "input": CLIP_WORDS,
                                                              "response_format": "wav"}).encode())
            clip.write_bytes(urllib.request.urlopen(request, timeout=args.timeout).read())
            Select(driver.find_element(By.ID, "clone-engine")).select_by_value(args.clone_engine)
            voice_id = f"check-{int(time.time())}"
            driver.find_element(By.ID, "clone-id").send_keys(voice_id)
            driver.find_element(By.ID, "clone-transcript").send_keys(CLIP_WORDS)
            driver.find_element(By.ID, "clone-language").send_keys("en")
            driver.find_element(By.ID, "clone-file").send_keys(str(clip))
            wait(driver, 30, lambda d: text_of(d, "clone-status").startswith("Clip ready"), "clip")
            driver.find_element(By.ID, "clone-button").click()
            wait(driver, args.timeout, lambda d: text_of(d, "clone-status").startswith(("Added", "The", "No", "This")) and
                 not text_of(d, "clone-status").startswith("Making"), "clone")
            listed = json.load(urllib.request.urlopen(f"{url}/v1/audio/voices?engine={args.clone_engine}", timeout=60))
            ids = [voice["id"] for voice in listed["voices"]]
            check("clip upload adds a voice", voice_id in ids, f"status '{text_of(driver, 'clone-status')}'; voices {ids}")
            driver.save_screenshot(str(out / "4-cloned.png"))
            # Leave the model folder as it was.
            delete = urllib.request.Request(f"{url}/v1/audio/voices/{voice_id}?engine={args.clone_engine}", method="DELETE")
            try:
                urllib.request.urlopen(delete, timeout=60)
            except OSError as error:
                print(f"note: could not delete the check's voice {voice_id}: {error}")

        # A microphone recording (Chromium's fake device: a tone) becomes a WAV clip, then is transcribed.
        record = driver.find_element(By.ID, "clone-record")
        record.click()
        wait(driver, 10, lambda d: "recording" in record.get_attribute("class"), "recording")
        time.sleep(2)
        record.click()
        wait(driver, 30, lambda d: text_of(d, "clone-status").startswith(("Recorded", "The", "Recording needs")), "recorded")
        recorded = wait(driver, 10, lambda d: d.execute_script(
            "const p = document.getElementById('clone-preview'); return !p.hidden && p.duration > 0 ? p.duration : null"), "preview")
        check("a microphone recording becomes a clip", bool(recorded), f"status '{text_of(driver, 'clone-status')}', {recorded} s")
        driver.find_element(By.ID, "transcribe-file").send_keys(str(out / "clip.wav") if (out / "clip.wav").exists() else "")
        wait(driver, 30, lambda d: text_of(d, "transcribe-status").startswith("Ready"), "transcribe clip")
        driver.find_element(By.ID, "transcribe-button").click()
        wait(driver, args.timeout, lambda d: not text_of(d, "transcribe-status").startswith(("Ready", "Listening")), "transcription")
        print(f"INFO transcription of the clip: status '{text_of(driver, 'transcribe-status')}', text '{text_of(driver, 'transcript')}'")
        driver.save_screenshot(str(out / "5-recorded-transcribed.png"))

        # A refused request is logged by Chromium as a failed resource; the page shows those itself. What
        # is left are the page's own script errors.
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
                  and "Failed to load resource: the server responded with a status" not in entry["message"]]
        check("no script errors in the browser console", not errors, "; ".join(e["message"][:200] for e in errors))
    finally:
        driver.quit()

    # 6. The same page on a phone-sized screen.
    phone = browser("500,900", phone=True)
    try:
        phone.get(url + "/")
        wait(phone, 60, lambda d: d.find_elements(By.CSS_SELECTOR, "#history-list li") or None, "phone history")
        width = phone.execute_script("return document.documentElement.scrollWidth")
        viewport = phone.execute_script("return window.innerWidth")
        check("phone screen: no sideways scrolling", width <= viewport, f"page {width} px wide in a {viewport} px viewport")
        phone.save_screenshot(str(out / "6-phone.png"))
    finally:
        phone.quit()
        if server:
            server.terminate()
            server.wait(timeout=60)

    print(f"{check.failures} failed; screenshots: {', '.join(sorted(p.name for p in out.glob('*.png')))}")
    sys.exit(check.failures)


if __name__ == "__main__":
    main()
