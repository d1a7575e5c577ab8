"""The web page in a real headless Chromium (Debian's chromium + chromium-driver, Selenium).

A server process runs on 127.0.0.1 with an SQLite file.  Games are created
through the API with a seed, so that a local mirror knows the mines; the
page is then opened with the game's resume link and played by clicking,
right-clicking and typing, as a person would.  Screenshots are saved under
the test's temporary directory (printed with ``-s``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("uvicorn")
pytest.importorskip("selenium")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

import numsweeper as ns  # noqa: E402
import server_support as support  # noqa: E402
from numsweeper.server.race import race_move  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SEED = 4242
WAIT = 20  # seconds any expected change may take on a slow shared machine

if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
    pytest.skip(
        "Chromium and its driver are not installed (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[support.ServerProcess]:
    folder = tmp_path_factory.mktemp("server")
    process = support.ServerProcess(f"sqlite:///{folder / 'games.db'}", folder / "server.log")
    process.start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("screenshots")
    print(f"\nscreenshots in {folder}")
    return folder


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Callable[[], WebDriver]]:
    """Start headless Chromiums, each with a fresh profile; all quit at the end."""
    started: list[WebDriver] = []

    def start() -> WebDriver:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        profile = tmp_path / f"profile{len(started)}"
        for flag in (
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1366,768",
            f"--user-data-dir={profile}",
        ):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        started.append(driver)
        return driver

    yield start
    for driver in started:
        driver.quit()


def new_game(server: support.ServerProcess, **body: Any) -> dict[str, Any]:
    answer = httpx2.post(f"{server.url}/api/games", json=body, timeout=30)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def wait(driver: WebDriver, check: Callable[[], Any], what: str) -> Any:
    return WebDriverWait(driver, WAIT, poll_frequency=0.05).until(lambda _: check(), what)


def codes(driver: WebDriver) -> Any:
    """The board's visible codes as the page shows them (its cells' data-code)."""
    return np.array(
        driver.execute_script(
            "return [...document.querySelectorAll('#board [role=row]')]"
            ".map(row => [...row.children].map(cell => Number(cell.dataset.code)))"
        )
    )


def cell(driver: WebDriver, r: int, c: int) -> Any:
    return driver.find_element(By.CSS_SELECTOR, f'.cell[data-r="{r}"][data-c="{c}"]')


def text(driver: WebDriver, element_id: str) -> str:
    return str(driver.find_element(By.ID, element_id).text)


def shows(driver: WebDriver, game: ns.Game, what: str) -> None:
    """Wait until the page shows exactly what the mirror's player sees."""
    wanted = game.snapshot().cells
    wait(
        driver,
        lambda: codes(driver).shape == wanted.shape and (codes(driver) == wanted).all(),
        what,
    )


def screenshot(driver: WebDriver, folder: Path, name: str) -> None:
    path = folder / name
    assert driver.save_screenshot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 2000


def open_game(driver: WebDriver, server: support.ServerProcess, made: dict[str, Any]) -> None:
    driver.get(f"{server.url}/#game={made['id']}.{made['token']}")
    wait(driver, lambda: len(driver.find_elements(By.CSS_SELECTOR, ".cell")) == 81, "the board")
    wait(driver, lambda: text(driver, "status") == "Click any cell to start", "the start")
    assert "token" not in driver.current_url and made["token"] not in driver.current_url


def test_a_game_is_won_by_clicking_flagging_chording_and_typing(
    server: support.ServerProcess, browser: Callable[[], WebDriver], artifacts: Path
) -> None:
    driver = browser()
    made = new_game(server, preset="beginner", seed=SEED, name="Ada")
    game = support.mirror(made, SEED)
    open_game(driver, server, made)
    assert text(driver, "mines-left") == "10" and text(driver, "timer") == "0"

    cell(driver, 4, 4).click()
    support.play(game, "reveal", 4, 4)
    shows(driver, game, "the first click's opening")

    # Right-click the mines around a number, then click the number: it opens the rest.
    board = game.board
    assert board is not None
    cells = game.snapshot().cells
    for r, c in zip(*np.nonzero(cells > 0), strict=True):
        around = (slice(max(r - 1, 0), r + 2), slice(max(c - 1, 0), c + 2))
        if (cells[around] == ns.HIDDEN).sum() > board.mines[around].sum() > 0:
            break
    for y, x in np.argwhere(board.mines[around]):
        y, x = int(y + around[0].start), int(x + around[1].start)
        ActionChains(driver).context_click(cell(driver, y, x)).perform()
        support.play(game, "flag", y, x)
        shows(driver, game, "a flag")
        assert cell(driver, y, x).text == "\u2691"
    assert text(driver, "mines-left") == str(game.snapshot().mines_left)
    cell(driver, int(r), int(c)).click()
    support.play(game, "chord", int(r), int(c))
    shows(driver, game, "the chord's cells")

    # The keyboard: arrows move from the number to a hidden safe cell, Enter reveals it.
    target = support.hidden_safe(game)[0]
    keys = [Keys.ARROW_DOWN if target[0] > r else Keys.ARROW_UP] * abs(target[0] - int(r))
    keys += [Keys.ARROW_RIGHT if target[1] > c else Keys.ARROW_LEFT] * abs(target[1] - int(c))
    ActionChains(driver).send_keys(*keys).perform()
    wait(driver, lambda: driver.switch_to.active_element == cell(driver, *target), "focus")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    support.play(game, "reveal", *target)
    shows(driver, game, "a cell revealed with Enter")
    assert int(text(driver, "timer")) >= 0

    while game.state is ns.GameState.IN_PROGRESS:
        target = support.hidden_safe(game)[0]
        cell(driver, *target).click()
        support.play(game, "reveal", *target)
        shows(driver, game, f"the reveal of {target}")
    wait(driver, lambda: text(driver, "status").startswith("You won in "), "the win")
    assert driver.find_element(By.ID, "board").get_attribute("data-state") == "won"
    screenshot(driver, artifacts, "won.png")
    moves = httpx2.get(
        f"{server.url}/api/games/{made['id']}/moves",
        headers={"Authorization": f"Bearer {made['token']}"},
        timeout=30,
    ).json()["moves"]
    assert [(m["kind"], m["row"], m["col"]) for m in moves] == [
        (m.kind, m.row, m.col) for m in game.moves
    ]


def test_a_game_is_lost_on_a_mine_and_the_page_shows_them_all(
    server: support.ServerProcess, browser: Callable[[], WebDriver], artifacts: Path
) -> None:
    driver = browser()
    made = new_game(server, preset="beginner", seed=SEED + 1)
    game = support.mirror(made, SEED + 1)
    open_game(driver, server, made)
    cell(driver, 0, 0).click()
    support.play(game, "reveal", 0, 0)
    shows(driver, game, "the first click")
    mine = support.mine_cells(game)[0]
    # Flag it with F, unflag it with a right-click, then step on it.
    cell(driver, *mine).send_keys("f")
    support.play(game, "flag", *mine)
    shows(driver, game, "the flag typed with F")
    ActionChains(driver).context_click(cell(driver, *mine)).perform()
    support.play(game, "flag", *mine)
    shows(driver, game, "the flag taken off")
    cell(driver, *mine).click()
    support.play(game, "reveal", *mine)
    shows(driver, game, "the mines")
    wait(driver, lambda: text(driver, "status") == "Boom! You hit a mine.", "the loss")
    assert driver.find_element(By.ID, "board").get_attribute("data-state") == "lost"
    shown = codes(driver)
    assert shown[mine] == ns.EXPLODED and (shown == ns.MINE).sum() == 9
    timer = text(driver, "timer")
    screenshot(driver, artifacts, "lost.png")
    cell(driver, 8, 8).click()  # nothing happens after the end
    assert (codes(driver) == shown).all() and text(driver, "timer") == timer


def test_new_game_makes_an_expert_board_that_fits_a_laptop_screen(
    server: support.ServerProcess, browser: Callable[[], WebDriver], artifacts: Path
) -> None:
    driver = browser()
    driver.get(server.url + "/")
    wait(driver, lambda: len(driver.find_elements(By.CSS_SELECTOR, ".cell")) == 81, "a board")
    driver.find_element(By.CSS_SELECTOR, "#preset option[value=expert]").click()
    driver.find_element(By.ID, "new-button").click()
    wait(driver, lambda: len(driver.find_elements(By.CSS_SELECTOR, ".cell")) == 480, "expert")
    wait(driver, lambda: text(driver, "mines-left") == "99", "99 mines")
    fits = driver.execute_script(
        "const d = document.documentElement;"
        "const b = document.getElementById('board').getBoundingClientRect();"
        "return [d.scrollWidth <= innerWidth, d.scrollHeight <= innerHeight,"
        " b.bottom <= innerHeight, b.right <= innerWidth, innerWidth, innerHeight]"
    )
    assert fits[:4] == [True, True, True, True], fits
    cell(driver, 8, 15).click()
    wait(driver, lambda: (codes(driver) >= 0).any(), "a click on the new board")
    assert text(driver, "leaders-preset") == "(expert)"
    screenshot(driver, artifacts, "expert.png")
    # The page remembers its game: a reload resumes it.
    before = codes(driver)
    driver.refresh()
    wait(
        driver,
        lambda: codes(driver).shape == (16, 30) and (codes(driver) == before).all(),
        "resume",
    )


def test_two_browsers_race_in_one_room(
    server: support.ServerProcess, browser: Callable[[], WebDriver], artifacts: Path
) -> None:
    ann, bob = browser(), browser()
    # Ann's page opens a room with its New race button ...
    ann.get(server.url + "/")
    wait(ann, lambda: len(ann.find_elements(By.CSS_SELECTOR, ".cell")) == 81, "a board")
    ann.find_element(By.ID, "race-button").click()
    wait(
        ann, lambda: "#room=" in ann.find_element(By.ID, "race-link").get_attribute("value"), "link"
    )
    wait(ann, lambda: "Start when everyone is in" in text(ann, "race-state"), "a waiting room")
    # ... and for a board whose mines the test knows, Ann hosts a seeded room.
    host = httpx2.post(
        f"{server.url}/api/rooms",
        json={"preset": "beginner", "seed": SEED, "name": "Ann"},
        timeout=30,
    ).json()
    key = host["id"]
    saved = json.dumps({"token": host["token"], "player": host["player"]})
    ann.execute_script(f"localStorage.setItem('numsweeper.room.{key}', arguments[0])", saved)
    ann.get(f"{server.url}/#room={key}")
    wait(ann, lambda: ann.find_element(By.ID, "start-button").is_displayed(), "the start button")
    link = ann.find_element(By.ID, "race-link").get_attribute("value")
    assert link.endswith(f"/#room={key}")

    bob.get(link)
    wait(bob, lambda: bob.find_element(By.ID, "join-form").is_displayed(), "the join form")
    bob.find_element(By.ID, "join-name").send_keys("Bob")
    bob.find_element(By.ID, "join-button").click()
    for driver in (ann, bob):
        wait(
            driver,
            lambda d=driver: len(d.find_elements(By.CSS_SELECTOR, "#players li")) == 2,
            "2 players",
        )
    assert not bob.find_element(By.ID, "start-button").is_displayed()
    ann.find_element(By.ID, "start-button").click()
    for driver in (ann, bob):
        wait(driver, lambda d=driver: text(d, "race-state").startswith("Race on!"), "the start")

    game = support.mirror(host["room"], SEED)
    cell(ann, 4, 4).click()
    support.play(game, "reveal", 4, 4)
    shows(bob, game, "Ann's opening on Bob's page")

    def score(driver: WebDriver, name: str) -> int:
        for item in driver.find_elements(By.CSS_SELECTOR, "#players li"):
            if item.text.startswith(name + ":"):
                return int(item.get_attribute("data-score"))
        raise AssertionError(name)

    opened = int((game.snapshot().cells >= 0).sum())
    wait(bob, lambda: score(bob, "Ann") == opened, "Ann's points on Bob's page")
    target = support.hidden_safe(game)[-1]
    cell(bob, *target).click()
    support.play(game, "reveal", *target)
    shows(ann, game, "Bob's cell on Ann's page")
    wait(ann, lambda: score(ann, "Bob") > 0, "Bob's points on Ann's page")

    private = support.hidden_safe(game)[0]  # Bob's flag stays on Bob's page
    ActionChains(bob).context_click(cell(bob, *private)).perform()
    wait(bob, lambda: codes(bob)[private] == ns.FLAG, "Bob's private flag")
    mine = support.mine_cells(game)[0]
    cell(bob, *mine).click()
    race_move(game, "reveal", *mine)  # the mirror follows the race's rule: a marked mine
    wait(bob, lambda: text(bob, "race-state") == "You hit a mine: you are out.", "Bob out")
    wait(ann, lambda: "Bob" in ann.find_element(By.CSS_SELECTOR, "#players li.out").text, "Bob out")
    wait(ann, lambda: "marked" in cell(ann, *mine).get_attribute("class"), "the marked mine")
    assert codes(ann)[private] == ns.HIDDEN
    screenshot(bob, artifacts, "race-bob-out.png")

    while support.hidden_safe(game):
        target = support.hidden_safe(game)[0]
        cell(ann, *target).click()
        support.play(game, "reveal", *target)
        shows(ann, game, f"Ann's reveal of {target}")
    for driver in (ann, bob):
        wait(driver, lambda d=driver: text(d, "race-state") == "Race over. Winner: Ann", "the end")
    assert score(bob, "Ann") + score(bob, "Bob") == 71
    screenshot(ann, artifacts, "race-ann-won.png")
