"""The live view in real headless Chromium (Debian's `chromium` and `chromium-driver`, driven by
selenium) over a real `mtt run --ui-port` on Ray: the page loads, the clock ticks, eliminations
appear without a reload, the operator starts, pauses, resumes and cancels the tournament.
Screenshots of every screen go to out/screenshots/ for review."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import free_port
from selenium import webdriver
from selenium.common.exceptions import SessionNotCreatedException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from orchestrator.views.audit import audit_run
from orchestrator.views.report import build_report

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]
ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "out" / "screenshots"
TOKEN = "wall-clock-test"
CONFIG = """
[tournament]
name = "Friday Night Hold'em"
players = 40
max_per_table = 8
starting_stack = 40000
buy_in = 5000
fee = 500

[levels]
unit = "minutes"
length = 2
blinds = [[25, 50, 0], [50, 100, 0], [100, 200, 25]]

[[breaks]]
after_level = 1
minutes = 10

[payouts]
percent = [45, 25, 15, 10, 5]
"""


CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--window-size=1600,900",
)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        pytest.fail("chromium and chromium-driver are not installed (make system installs them)")
    driver = None
    for attempt in (1, 2):  # on a loaded machine Chromium can miss chromedriver's start window
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or ""
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / f'chromium-{attempt}'}"):
            options.add_argument(flag)
        try:
            driver = webdriver.Chrome(
                service=Service(shutil.which("chromedriver")), options=options
            )
            break
        except SessionNotCreatedException:
            if attempt == 2:
                raise
    assert driver is not None
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def live_run(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    """`mtt run --ui-port P --wait-for-start` with the operator credential in its variable."""
    config = tmp_path / "live.toml"
    config.write_text(CONFIG)
    port, out, log = free_port(), tmp_path / "run", tmp_path / "run.log"
    command = [sys.executable, "-m", "orchestrator.cli.main", "run", str(config), "--seed", "3"]
    command += ["--out", str(out), "--ui-port", str(port), "--wait-for-start"]
    # Mostly tight-aggressive bots, deep: the random ones bust soon (an elimination to see),
    # the rest play on past the operator's resume and cancel (a field of random and
    # calling-station bots could be played out between the resume and the cancel).
    command += ["--bots", "tag=80,random=20"]
    env = os.environ | {"MTT_OPERATOR_TOKEN": TOKEN}
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/state", timeout=5) as answer:
                    json.load(answer)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the live view did not come up:\n{log.read_text()}")
                time.sleep(0.2)
        yield url, process, out
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)  # mtt run shuts Ray down on Ctrl-C
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def shot(driver: WebDriver, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.execute_script("for (const e of document.querySelectorAll('main > *')) e.scrollTop = 0")
    driver.save_screenshot(str(SHOTS / f"{name}.png"))


def text(driver: WebDriver, element: str) -> str:
    return str(driver.find_element(By.ID, element).text)


def texts(driver: WebDriver, selector: str) -> list[str]:
    """Read in one go: the page redraws a table or the feed whenever events arrive."""
    script = "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)"
    return list(driver.execute_script(script, selector))


def names(driver: WebDriver) -> list[str]:
    script = "return [...document.querySelectorAll('.seats li')].map(e => e.dataset.player)"
    return list(driver.execute_script(script))


def wait_for(driver: WebDriver, what: str, condition: object, timeout: float = 60) -> None:
    WebDriverWait(driver, timeout, poll_frequency=0.1).until(
        condition, message=f"waited {timeout}s for {what}"
    )


def test_clock_and_lobby_live_in_chromium(
    browser: WebDriver, live_run: tuple[str, subprocess.Popen[bytes], Path]
) -> None:
    url, process, out = live_run
    browser.get(f"{url}/")
    clock_tab = browser.current_window_handle
    wait_for(browser, "the waiting clock", lambda d: text(d, "status") == "WAITING")
    assert text(browser, "clock-time") == "2:00" and text(browser, "blinds") == "25 / 50"
    shot(browser, "1-clock-waiting")

    browser.switch_to.new_window("tab")
    browser.get(f"{url}/lobby")
    lobby_tab = browser.current_window_handle
    loaded_at = browser.execute_script("return document.body.dataset.loadedAt")
    browser.find_element(By.ID, "token").send_keys(TOKEN)
    browser.find_element(By.ID, "action-start").click()
    wait_for(
        browser, "five tables", lambda d: len(d.find_elements(By.CSS_SELECTOR, ".table-card")) == 5
    )

    # The clock ticks on its own between pushes.
    browser.switch_to.window(clock_tab)
    wait_for(browser, "the running clock", lambda d: text(d, "status") == "RUNNING")
    first = text(browser, "clock-time")
    wait_for(browser, "the clock to tick", lambda d: text(d, "clock-time") != first, timeout=5)
    assert text(browser, "players-left") != "0" and text(browser, "prize-pool") == "2,000.00"
    shot(browser, "2-clock-running")

    # An elimination reaches the lobby's feed without a reload; then the operator pauses.
    browser.switch_to.window(lobby_tab)
    wait_for(
        browser,
        "an elimination",
        lambda d: d.find_elements(By.CSS_SELECTOR, "#feed li.elimination"),
    )
    browser.find_element(By.ID, "action-pause").click()
    wait_for(browser, "the pause", lambda d: text(d, "status") == "PAUSED", timeout=30)
    assert browser.execute_script("return document.body.dataset.loadedAt") == loaded_at
    elimination = texts(browser, "#feed li.elimination")[0]
    assert "is out in" in elimination and "place (table" in elimination
    seated = names(browser)
    assert 2 <= len(seated) < 40
    assert browser.find_elements(By.CSS_SELECTOR, ".seats .button")  # the dealer buttons
    shot(browser, "3-lobby-paused")

    # A refused action says why; the search finds a seated player.
    browser.find_element(By.ID, "action-pause").click()
    wait_for(browser, "the refusal", lambda d: "refused" in text(d, "action-result"), timeout=20)
    assert "already paused" in text(browser, "action-result")
    player = seated[0]
    browser.find_element(By.ID, "search").send_keys(player)
    found = text(browser, "search-result")
    # Seated, or busted by a hand that was in progress when the pause came.
    assert found.startswith((f"{player}: table ", f"{player}: out in ")), found
    shot(browser, "4-lobby-search")

    browser.switch_to.window(clock_tab)
    wait_for(browser, "the paused clock", lambda d: text(d, "status") == "PAUSED")
    frozen = text(browser, "clock-time")
    time.sleep(1.5)
    assert text(browser, "clock-time") == frozen
    shot(browser, "5-clock-paused")

    browser.switch_to.window(lobby_tab)
    browser.find_element(By.ID, "action-resume").click()
    wait_for(browser, "the resume", lambda d: text(d, "status") in ("RUNNING", "FINISHED"))
    browser.find_element(By.ID, "cancel-reason").send_keys("the room closes")
    browser.find_element(By.ID, "action-cancel").click()
    wait_for(browser, "the cancellation", lambda d: text(d, "status") == "CANCELLED", timeout=30)
    assert "cancelled: the room closes" in text(browser, "feed")
    shot(browser, "6-lobby-cancelled")
    assert process.wait(timeout=120) == 3  # mtt run's exit code for a cancelled tournament
    report = audit_run(out)
    assert not report.violations, "\n".join(map(str, report.violations))
    assert json.loads((out / "results.json").read_text())["cancelled"] == "the room closes"
    page = build_report(out, out.parent / "report").read_text()  # a cancelled run's report
    assert "cancelled: the room closes" in page and "won by" not in page
