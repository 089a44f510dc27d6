"""Chrome: one tab that opens local files (`file://`), for upstream's browser tasks.

A file manager's "Open with" hands Chrome a file; so does typing a `file://` address in the
address bar. Task pages are drawn by `sim/web_pages.py`; other files show their text; addresses
on the web get Chrome's offline page (the sim has no network). The page's state (where the X is,
what the canvas holds) lives in the tab, as a page's script state does, and is lost when the app
is closed. Clearing Chrome's data (`device_facts.chrome.DATA_DIR`) brings back the first-run
screens ("Welcome to Chrome", "Turn on sync?"), as on the emulator after `pm clear`; a fresh
phone has been through them, as upstream's setup clicks through them once. The three-dot menu
has New tab, Reload and Zoom (the page zoom bar, what makes a tall page fit a short screen).
"""

from __future__ import annotations

from android_world.env.device_facts import chrome as facts
from android_world.env.sim import web_pages
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.widgets import Node

TOOLBAR_H = 147  # 56 dp
ZOOM_LEVELS = (0.25, 0.33, 0.5, 0.67, 0.75, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)
NEW_TAB_HINT = "Search or type URL"


class Tab:
    """The one tab: its address, the document shown, and the page zoom."""

    def __init__(self) -> None:
        self.url: str | None = None
        self.page: web_pages.WebPage | None = None
        self.zoom = 1.0


class ChromeApp(App):
    package = facts.PACKAGE
    opens = (".html", ".htm")

    def __init__(self, phone) -> None:
        super().__init__(phone)
        self.tab = Tab()

    def install(self) -> None:
        self.device.write_text(facts.FIRST_RUN_DONE, "1")

    def first_run_done(self) -> bool:
        return self.device.exists(facts.FIRST_RUN_DONE)

    def main_screen(self) -> Screen:
        return BrowserTab(self) if self.first_run_done() else Welcome(self, None)

    def stop(self) -> None:
        super().stop()
        self.tab = Tab()

    def open_file(self, path: str) -> None:
        self.open_url(facts.file_url(path))

    def open_url(self, url: str) -> None:
        """Show `url` in the tab, after the first-run screens if they are due."""
        if not self.first_run_done():
            self.stack = [Welcome(self, url)]
            return
        self.load(url)
        self.stack = [BrowserTab(self)]

    def load(self, url: str) -> None:
        self.tab.url = url
        self.tab.page = self._document(url)

    def _document(self, url: str) -> web_pages.WebPage:
        if not url.startswith("file://"):
            return web_pages.message_page(
                "No internet", "Try checking the network connection.", "ERR_INTERNET_DISCONNECTED"
            )
        path = url[len("file://") :]
        if not self.device.exists(path) or self.device.is_dir(path):
            return web_pages.message_page(
                "Your file couldn't be accessed",
                "It may have been moved, edited, or deleted.",
                "ERR_FILE_NOT_FOUND",
            )
        text = self.device.read_file(path).decode("utf-8", errors="replace")
        return web_pages.open_document(text, path.rsplit("/", 1)[-1])


class _FirstRun(Screen):
    activity = "org.chromium.chrome.browser.firstrun.FirstRunActivity"

    def __init__(self, app: App, pending_url: str | None):
        super().__init__(app)
        self.pending_url = pending_url

    def page(self, title: str, message: str, buttons: list[Node]) -> Node:
        return w.column(
            w.spacer(h=260),
            w.label(title, size=64, center=True, h=110),
            w.spacer(h=40),
            w.label(message, color="secondary", center=True, max_lines=4, pad=(80, 0, 80, 0)),
            w.spacer(flex=1),
            *buttons,
            w.spacer(h=60),
            flex=1,
            gap=12,
        )

    def on_back(self) -> bool:
        self.app.pop()  # leaving the first run leaves Chrome
        return True


class Welcome(_FirstRun):
    def build(self) -> Node:
        return self.page(
            "Welcome to Chrome",
            "Chrome is made by Google. By continuing you agree to the Terms of Service.",
            [w.button("Accept & continue", self._accept, variant="filled", w=700)],
        )

    def _accept(self) -> None:
        self.app.replace(SyncConsent(self.app, self.pending_url))


class SyncConsent(_FirstRun):
    def build(self) -> Node:
        return self.page(
            "Turn on sync?",
            "Get your bookmarks, passwords and more on all your devices.",
            [
                w.button("Yes, I'm in", self._finish, variant="filled", w=700),
                w.button("No thanks", self._finish, variant="text", w=700),
            ],
        )

    def _finish(self) -> None:
        app = self.app
        assert isinstance(app, ChromeApp)
        app.device.write_text(facts.FIRST_RUN_DONE, "1")
        if self.pending_url is not None:
            app.open_url(self.pending_url)
        else:
            app.replace(BrowserTab(app))


class BrowserTab(Screen):
    """The tab: the toolbar (home, address, tab switcher, menu), the page, the zoom bar."""

    activity = facts.ACTIVITY

    def __init__(self, app: App):
        super().__init__(app)
        self.editing = False
        self.address = ""
        self.replace_address = False  # the address is selected: typing replaces it
        self.zoom_bar = False

    @property
    def tab(self) -> Tab:
        app = self.app
        assert isinstance(app, ChromeApp)
        return app.tab

    def build(self) -> Node:
        content = self._content()
        if self.zoom_bar and self.tab.page is not None:
            # A sheet over the page's bottom: the page keeps its size (the zoom shows live).
            sheet = w.column(w.spacer(flex=1), self._zoom_row(), flex=1)
            content = Node(
                kind="box",
                cls="android.widget.FrameLayout",
                direction="overlay",
                children=[content, sheet],
                flex=1,
            )
        return w.column(self._toolbar(), content, flex=1)

    # toolbar ------------------------------------------------------------------------------
    def _toolbar(self) -> Node:
        if self.editing:
            field = w.text_field(
                self.address,
                self._type_address,
                hint=NEW_TAB_HINT,
                key="url_bar",
                on_enter=self._go,
                res_id="com.android.chrome:id/url_bar",
            )
            field.flex, field.h = 1.0, 120
            return w.row(
                w.icon_button("Navigate up", "back", self._stop_editing),
                field,
                h=TOOLBAR_H,
                pad=(12, 0, 24, 0),
                align="center",
                kind="appbar",
                res_id="com.android.chrome:id/toolbar",
            )
        url = self.tab.url or ""
        address = w.label(
            url or NEW_TAB_HINT,
            size=40,
            color="text" if url else "secondary",
            res_id="com.android.chrome:id/url_bar",
            flex=1,
        )
        address.clickable, address.on_click, address.h = True, self._edit_address, 110
        return w.row(
            w.icon_button("Open the home page", "nav_home", self._home),
            address,
            w.icon_button("Switch or close tabs", "apps", lambda: None),
            w.icon_button("Customize and control Google Chrome", "more", self._menu),
            h=TOOLBAR_H,
            pad=(12, 0, 12, 0),
            align="center",
            kind="appbar",
            res_id="com.android.chrome:id/toolbar",
        )

    def _edit_address(self) -> None:
        self.editing, self.address, self.replace_address = True, self.tab.url or "", True
        self.focus = "url_bar"

    def _type_address(self, text: str) -> None:
        if self.replace_address and text.startswith(self.address):
            text = text[len(self.address) :]
        self.address, self.replace_address = text, False

    def _stop_editing(self) -> None:
        self.editing, self.focus = False, None

    def _go(self) -> None:
        typed = self.address.strip()
        self._stop_editing()
        if not typed:
            return
        if typed.startswith("/"):
            typed = facts.file_url(typed)
        app = self.app
        assert isinstance(app, ChromeApp)
        app.load(typed)
        self.scroll_offsets.clear()

    def on_back(self) -> bool:
        if self.editing:
            self._stop_editing()
            return True
        if self.zoom_bar:
            self.zoom_bar = False
            return True
        return False

    def _home(self) -> None:
        self.tab.url, self.tab.page = None, None
        self.scroll_offsets.clear()

    def _menu(self) -> None:
        items = [("New tab", self._home)]
        if self.tab.page is not None:
            items += [("Reload", self._reload), ("Zoom", self._show_zoom)]
        self.show_menu(items)

    def _reload(self) -> None:
        if self.tab.url is not None:
            app = self.app
            assert isinstance(app, ChromeApp)
            app.load(self.tab.url)

    def _show_zoom(self) -> None:
        self.zoom_bar = True

    # page ---------------------------------------------------------------------------------
    def _content(self) -> Node:
        page = self.tab.page
        if page is None:
            return w.column(
                w.spacer(h=300),
                w.label("Google", size=96, center=True, h=160),
                w.spacer(h=60),
                w.button(NEW_TAB_HINT, self._edit_address, variant="outlined", w=860),
                flex=1,
            )
        css = web_pages.page_scale(page.fits_screen, self.app.phone.width, self.tab.zoom)
        margin = css.px(web_pages.BODY_MARGIN)
        content = w.scroll_list(
            "web_page", *page.nodes(css), pad=(margin, margin, margin, margin), res_id=""
        )
        content.cls = "android.webkit.WebView"
        content.desc = page.title
        content.style["keep_all"] = True  # off-screen page nodes stay in the tree, as in Chrome
        return content

    def _zoom_row(self) -> Node:
        percent = round(self.tab.zoom * 100)
        return w.row(
            w.icon_button("Decrease zoom", "remove", lambda: self._zoom(-1)),
            w.label(f"{percent}%", center=True, flex=1),
            w.icon_button("Increase zoom", "add", lambda: self._zoom(1)),
            w.button("Reset", lambda: self._set_zoom(1.0), variant="text", w=220),
            h=170,
            pad=(24, 0, 24, 0),
            align="center",
            res_id="com.android.chrome:id/page_zoom_bar",
            style={"bg": "surface"},
        )

    def _zoom(self, step: int) -> None:
        levels = ZOOM_LEVELS
        now = min(range(len(levels)), key=lambda i: abs(levels[i] - self.tab.zoom))
        self._set_zoom(levels[max(0, min(len(levels) - 1, now + step))])

    def _set_zoom(self, zoom: float) -> None:
        self.tab.zoom = zoom
        self.scroll_offsets.clear()
