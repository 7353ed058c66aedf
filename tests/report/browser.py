"""Headless Chromium driven over the DevTools protocol on a pipe (standard library only).

``--remote-debugging-pipe`` makes Chromium read protocol messages from fd 3
and write its answers to fd 4, each a JSON object ending in a NUL byte: no
websocket client, no puppeteer, no network port. Enough of the protocol to
load a page at a given viewport, collect console errors and exceptions,
measure the page's width and take a screenshot; optionally with networking
switched off, recording every request the page made.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM", "PageCheck", "check_page"]


def _find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


CHROMIUM = _find_chromium()


@dataclass
class PageCheck:
    """What one load of a page showed."""

    console_errors: list[str] = field(default_factory=list)
    scroll_width: int = 0
    viewport_width: int = 0
    widest: list[str] = field(default_factory=list)
    """The elements that reach past the viewport (tag.class: right edge), for the failure message."""
    screenshot: Path | None = None
    requests: list[str] = field(default_factory=list)
    """Every URL the page asked for (the page itself included)."""
    ready: Any = None
    """What the ``ready`` expression returned once truthy (None: never, or not asked)."""


def _onto_3_and_4(read_end: int, write_end: int) -> None:
    """Chromium expects the pipe on fds 3 and 4 exactly, inheritable.

    Fresh copies first: one end may already sit on 3 or 4 (dup2 onto itself
    would keep its close-on-exec flag, and the other dup2 could clobber it).
    """
    read_copy, write_copy = os.dup(read_end), os.dup(write_end)
    os.dup2(read_copy, 3)
    os.dup2(write_copy, 4)


class _Pipe:
    def __init__(self, binary: str, profile: Path) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        self._process = subprocess.Popen(  # a fixed binary and flags
            [
                binary,
                "--headless=new",
                "--remote-debugging-pipe",
                "--no-sandbox",  # the tests may run as root in a container
                "--disable-gpu",
                # No update checks or field trials: the only requests are the page's own.
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--no-default-browser-check",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            # Python's descriptors are close-on-exec already; close_fds would
            # also close the 3 and 4 that preexec_fn just made.
            close_fds=False,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=lambda: _onto_3_and_4(to_browser_r, from_browser_w),  # noqa: PLW1509  # only dup/dup2, before exec
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    msg = f"{method}: {reply['error']}"
                    raise RuntimeError(msg)
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for event in self.events:
            if event.get("method") == method:
                return event
        while time.monotonic() < deadline:
            event = self._read()
            self.events.append(event)
            if event.get("method") == method:
                return event
        msg = f"no {method} within {timeout} s"
        raise TimeoutError(msg)

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                msg = "chromium closed the DevTools pipe"
                raise RuntimeError(msg)
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        decoded: dict[str, Any] = json.loads(raw)
        return decoded

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.send("Browser.close")
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


_WIDEST = """
(() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.right > width + 1 && !el.closest('.scroll')) {
      out.push(el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') + ': ' + Math.round(r.right));
    }
  }
  return JSON.stringify(out.slice(0, 10));
})()
"""


def check_page(
    html: Path,
    *,
    width: int,
    height: int,
    screenshot: Path | None,
    offline: bool = False,
    fragment: str = "",
    ready: str | None = None,
) -> PageCheck:
    """Load ``html`` at ``width``×``height``; console errors, widths, and a full-page screenshot.

    ``offline`` switches the page's networking off (DevTools network
    emulation) before it loads; ``fragment`` is appended to its URL (``#…``);
    ``ready`` is a JavaScript expression polled (up to 15 s) until truthy
    before anything is measured: for pages that render asynchronously.
    """
    if CHROMIUM is None:
        msg = "no chromium on PATH"
        raise RuntimeError(msg)
    with tempfile.TemporaryDirectory(prefix="lanes-chromium-") as profile:
        pipe = _Pipe(CHROMIUM, Path(profile))
        try:
            target = pipe.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = pipe.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
                "sessionId"
            ]
            for domain in ("Page", "Runtime", "Log", "Network"):
                pipe.send(f"{domain}.enable", session=session)
            if offline:
                pipe.send(
                    "Network.emulateNetworkConditions",
                    {
                        "offline": True,
                        "latency": 0,
                        "downloadThroughput": -1,
                        "uploadThroughput": -1,
                    },
                    session=session,
                )
            pipe.send(
                "Emulation.setDeviceMetricsOverride",
                {
                    "width": width,
                    "height": height,
                    "deviceScaleFactor": 1,
                    "mobile": width < 600,
                },  # phone-sized
                session=session,
            )
            url = html.resolve().as_uri() + fragment
            pipe.send("Page.navigate", {"url": url}, session=session)
            pipe.wait_for("Page.loadEventFired")

            def evaluate(expression: str) -> Any:  # whatever the page returns
                reply = pipe.send(
                    "Runtime.evaluate",
                    {"expression": expression, "returnByValue": True},
                    session=session,
                )
                return reply["result"].get("value")

            found = None
            if ready is not None:
                deadline = time.monotonic() + 15
                while not (found := evaluate(ready)) and time.monotonic() < deadline:
                    time.sleep(0.2)
            check = PageCheck(
                ready=found,
                scroll_width=int(evaluate("document.documentElement.scrollWidth")),
                viewport_width=int(evaluate("document.documentElement.clientWidth")),
                widest=json.loads(evaluate(_WIDEST)),
            )
            if screenshot is not None:
                content = pipe.send("Page.getLayoutMetrics", session=session)["cssContentSize"]
                clip = {
                    "x": 0,
                    "y": 0,
                    "width": width,
                    "height": min(content["height"], 16000),
                    "scale": 1,
                }
                shot = pipe.send(
                    "Page.captureScreenshot",
                    {"format": "png", "captureBeyondViewport": True, "clip": clip},
                    session=session,
                )
                screenshot.write_bytes(base64.b64decode(shot["data"]))
                check.screenshot = screenshot
            for event in pipe.events:
                method, params = event.get("method"), event.get("params", {})
                if method == "Runtime.consoleAPICalled" and params.get("type") in (
                    "error",
                    "assert",
                ):
                    check.console_errors.append(json.dumps(params.get("args")))
                elif method == "Runtime.exceptionThrown":
                    check.console_errors.append(json.dumps(params.get("exceptionDetails")))
                elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                    check.console_errors.append(str(params["entry"].get("text")))
                elif method == "Network.requestWillBeSent":
                    check.requests.append(str(params.get("request", {}).get("url")))
            return check
        finally:
            pipe.close()
