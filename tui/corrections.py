"""The reader's topic corrections (issue 13): rename, move an entry, merge, split, a topic
from a search, hide, show and undo, each a key and a small dialog where it needs input.

Every correction runs in a thread worker (a split or a new topic re-fits), on the
screen's own connection as the first start's grouping does (SQLite's data_version then
never mistakes our own writes for another process's). When it is done the topics are
read again, the changed topic is shown and a toast says what changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.worker import get_current_worker
from topiclens.store import Store, Topic

from .display import terminal_line
from .model import View

if TYPE_CHECKING:
    from topiclens.clustering.corrections import Change

    from .main_screen import MainScreen

GROUP = "correction"  # the correcting worker's group
Correction = Callable[[Store], "Change | None"]


class CorrectionActions:
    """MainScreen's correction actions (a mixin: ``self`` is the main screen)."""

    correcting: bool = False  # a correction is running: another is refused until it ends

    # --- the actions -------------------------------------------------------------------

    def action_rename_topic(self: MainScreen) -> None:
        topic = self.topic_here()
        if topic is None:
            return
        from topiclens.clustering.corrections import rename_topic

        from .screens.topic_name import TopicNameScreen

        def named(name: str | None) -> None:
            if name:
                self.correct(lambda store: rename_topic(store, topic.id, name))

        screen = TopicNameScreen("Rename topic", topic_subject(topic), topic.name)
        self.app.push_screen(screen, named)

    def action_move_entry(self: MainScreen) -> None:
        entry_id = self._need_entry()
        if entry_id is None or self.detail is None:
            return
        from topiclens.clustering.corrections import move_entry

        from .screens.topic_picker import TopicPickerScreen

        own = self.detail.topic.id if self.detail.topic is not None else None
        targets = [t for t in self.topics if t.id != own]

        def chosen(topic_id: int | None) -> None:
            if topic_id is not None:
                self.correct(lambda store: move_entry(store, entry_id, topic_id))

        title = f"Move “{self.detail.entry.title}” to…"
        self.app.push_screen(TopicPickerScreen("Move entry", title, targets), chosen)

    def action_merge_topic(self: MainScreen) -> None:
        topic = self.topic_here()
        if topic is None:
            return
        from topiclens.clustering.corrections import merge_topics

        from .screens.topic_name import TopicNameScreen
        from .screens.topic_picker import TopicPickerScreen

        def chosen(other: int | None) -> None:
            if other is None:
                return

            def named(name: str | None) -> None:
                if name is not None:  # blank: the first topic keeps its name
                    ids = [topic.id, other]
                    self.correct(lambda store: merge_topics(store, ids, name or None))

            partner = next((t for t in self.topics if t.id == other), None)
            subject = f"{topic_subject(topic)} + {topic_subject(partner) if partner else other}"
            keeps = f"keeps “{topic.name}”"
            screen = TopicNameScreen("Merged topic's name", subject, optional=keeps)
            self.app.push_screen(screen, named)

        targets = [t for t in self.topics if t.id != topic.id]
        title = f"Merge “{topic.name}” with…"
        self.app.push_screen(TopicPickerScreen("Merge topics", title, targets), chosen)

    def action_split_topic(self: MainScreen) -> None:
        topic = self.topic_here()
        if topic is None:
            return
        from topiclens.clustering.corrections import split_topic

        from .screens.split_topic import SplitTopicScreen

        def parts(k: int | None) -> None:
            if k is not None:
                self.correct(lambda store: split_topic(store, topic.id, k), "Splitting…")

        self.app.push_screen(SplitTopicScreen(topic_subject(topic), topic.size), parts)

    def action_topic_from_search(self: MainScreen) -> None:
        from topiclens.clustering.corrections import new_topic

        from .screens.topic_terms import TopicTermsScreen

        def given(answer: tuple[str, list[str]] | None) -> None:
            if answer is not None:
                name, terms = answer
                self.correct(lambda store: new_topic(store, name, terms), "Gathering entries…")

        self.app.push_screen(TopicTermsScreen(self.search_query or ""), given)

    def action_hide_topic(self: MainScreen) -> None:
        topic = self.topic_here()
        if topic is None:
            return
        from topiclens.clustering.corrections import hide_topic

        self.correct(lambda store: hide_topic(store, topic.id))

    def action_show_topic(self: MainScreen) -> None:
        from topiclens.clustering.corrections import hidden_topics, show_topic

        from .screens.topic_picker import TopicPickerScreen

        hidden = hidden_topics(self.store)
        if not hidden:
            self.notify("No hidden topics.", severity="warning", timeout=3)
            return

        def chosen(topic_id: int | None) -> None:
            if topic_id is not None:
                self.correct(lambda store: show_topic(store, topic_id))

        title = "Show which hidden topic again?"
        self.app.push_screen(TopicPickerScreen("Show topic", title, hidden), chosen)

    def action_undo_topic(self: MainScreen) -> None:
        from topiclens.clustering.corrections import undo

        self.correct(undo)

    # --- helpers -----------------------------------------------------------------------

    def topic_here(self: MainScreen) -> Topic | None:
        """The topic shown (in a topic's view) or else the topic of the entry shown."""
        topic_id = None
        if self.view is not None and self.view.kind == "topic":
            topic_id = self.view.topic_id
        elif self.detail is not None and self.detail.topic is not None:
            topic_id = self.detail.topic.id
        topic = next((t for t in self.topics if t.id == topic_id), None)
        if topic is None:
            self.notify("No topic chosen: choose one in the topic list.", severity="warning")
        return topic

    def correct(self: MainScreen, correction: Correction, working: str | None = None) -> None:
        """Run ``correction`` on the store in a thread worker; then show what changed."""
        if self.correcting:
            self.notify("A correction is still running.", severity="warning", timeout=3)
            return
        if self.preparing:  # the grouping would replace the topics under the correction
            self.notify(
                "Topics are being grouped: correct them once they are ready.", severity="warning"
            )
            return
        self.correcting = True
        if working:
            self.notify(working, timeout=3)
        store = self.store

        def work() -> None:
            from topiclens.clustering.corrections import CorrectionError

            worker = get_current_worker()
            try:
                change = correction(store)
            except CorrectionError as exc:
                message = str(exc)
            except Exception as exc:  # a failed correction is a toast, never a dead reader
                message = f"Could not correct the topics: {exc}"
            else:
                if not worker.is_cancelled:
                    self.app.call_from_thread(self.corrected, change)
                return
            if not worker.is_cancelled:
                self.app.call_from_thread(self.correction_failed, message)

        self.run_worker(work, thread=True, group=GROUP, exit_on_error=False)

    def corrected(self: MainScreen, change: Change | None) -> None:
        """Read the topics again, show the changed topic (the entry under the cursor kept
        when it is there) and say what changed."""
        self.correcting = False
        if change is None:
            self.notify("Nothing to undo.", severity="warning", timeout=3)
            return
        if change.topic_id is not None:
            self.view = View("topic", change.topic_id)  # reload falls back if it is gone
        self._version = self.store.external_changes()
        self.reload()
        self.load_detail(self.entry_list.current_id)
        self.notify(terminal_line(change.message), markup=False)

    def correction_failed(self: MainScreen, message: str) -> None:
        self.correcting = False
        self.notify(terminal_line(message), severity="error", markup=False)


def topic_subject(topic: Topic) -> str:
    """A topic as a dialog names it: its name and its id (what the command line takes)."""
    return f"{topic.name} #{topic.id}"
