"""The Lab page in a real browser: load a request, plan it, read what a person sees.

The app runs in-process under uvicorn on 127.0.0.1 (a free port, bounded startup wait);
Playwright drives Debian's ``chromium`` (``make browser-deps`` installs it; no Playwright
browser download). Without chromium or Playwright the test is skipped with the reason,
except under CI (``CI`` set to ``true``, ``1`` or ``yes``) where that is a failure.

Screenshots go to the test's ``tmp_path`` and, when ``CEREBRI_ARTIFACTS_DIR`` is set, also
to ``$CEREBRI_ARTIFACTS_DIR/lab-<case>.png``.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

STARTUP_SECONDS = 20.0
TIMEOUT_MS = 15_000


def _under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def _unavailable(reason: str) -> None:
    if _under_ci():
        pytest.fail(f"CI run without the Lab browser test's dependencies: {reason}")
    pytest.skip(reason)


def _chromium_path() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    _unavailable("Debian's chromium is not installed (run `make browser-deps`)")
    raise AssertionError("unreachable")


def _create_app() -> Any:
    from cerebri.service import create_app

    return create_app()


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """The app under uvicorn in a background thread; stopped after the module."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        _create_app(), host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="lab-uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_SECONDS
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            pytest.fail(f"uvicorn did not start on 127.0.0.1:{port} within {STARTUP_SECONDS} s")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = _chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox"], headless=True
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Browser, base_url: str) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.set_default_timeout(TIMEOUT_MS)
    # Everything the page needs comes from the app itself: fail on any other host.
    outside: list[str] = []

    def only_the_app(route: Any) -> None:
        url = route.request.url
        if url.startswith(base_url + "/"):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    context.route("**/*", only_the_app)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(f"{base_url}/lab/")
    opened.wait_for_selector("body[data-ready=true]")
    try:
        yield opened
    finally:
        context.close()
    assert outside == [], f"the Lab reached beyond the app: {outside}"
    assert errors == [], f"JavaScript errors on the Lab page: {errors}"


def _screenshot(page: Page, tmp_path: Path, name: str) -> Path:
    target = tmp_path / f"{name}.png"
    page.screenshot(path=str(target), full_page=True)
    artifacts = os.environ.get("CEREBRI_ARTIFACTS_DIR")
    if artifacts:
        folder = Path(artifacts)
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(target, folder / f"{name}.png")
    return target


def _plan(page: Page) -> None:
    page.get_by_test_id("plan-button").click()
    page.wait_for_function(
        "document.getElementById('status').textContent.startsWith('Planned')"
        " || !document.getElementById('error').hidden"
    )
    error = page.get_by_test_id("error")
    assert error.is_hidden(), error.text_content()


def test_lab_plans_the_shipped_example(page: Page, tmp_path: Path) -> None:
    select = page.get_by_test_id("example-select")
    assert "design-review" in select.locator("option").all_text_contents()
    select.select_option("design-review")
    page.get_by_test_id("load-example").click()
    page.wait_for_function(
        "document.getElementById('request-input').value.includes('example-design-review')"
    )
    _plan(page)

    rows = page.get_by_test_id("candidate-row")
    assert rows.count() == 4
    first = rows.first.get_by_test_id("candidate-start").text_content()
    assert first == "2026-10-05 12:00 UTC"
    assert page.get_by_test_id("outcome").text_content().startswith("Solution")
    assert "every position of the declared grid" in (
        page.get_by_test_id("assessment-text").text_content() or ""
    )
    assert page.get_by_test_id("validation-state").text_content() == "Valid"
    assert page.get_by_test_id("busy-interval").count() >= 4
    assert page.get_by_test_id("chosen-candidate").count() == 1
    assert page.get_by_test_id("start-feasible").count() == 4
    assert page.get_by_test_id("start-rejected").count() > 0
    _screenshot(page, tmp_path, "lab-design-review")


@pytest.mark.conformance
def test_lab_plans_a_pasted_request(page: Page, conformance: Path, tmp_path: Path) -> None:
    text = (conformance / "cerebri" / "request.json").read_text(encoding="utf-8")
    page.get_by_test_id("request-input").fill(text)
    _plan(page)

    rows = page.get_by_test_id("candidate-row")
    assert rows.count() == 7
    starts = rows.get_by_test_id("candidate-start").all_text_contents()
    assert starts == [f"2026-10-01 {t} UTC" for t in ("10:00", "10:15", "10:30", "10:45")] + [
        f"2026-10-01 {t} UTC" for t in ("11:00", "11:15", "11:30")
    ]
    assert page.get_by_test_id("start-feasible").count() == 7

    rejected = page.locator('[data-testid="start-rejected"][data-start="2026-10-01T09:00:00Z"]')
    assert "Overlap" in (rejected.get_attribute("title") or "")
    rejected.click()
    reason = page.get_by_test_id("start-details").get_by_test_id("rejection-reason").first
    text = reason.text_content() or ""
    assert "NO_OVERLAP" in text
    assert "overlaps" in text
    assert "busy" in text
    assert page.get_by_test_id("rejection-row").count() == 4
    _screenshot(page, tmp_path, "lab-request")
