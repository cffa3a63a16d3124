"""The reader's corrections to its topics: the one interface the reader and the command
line call. Each function does its work in one store transaction (logged, so :func:`undo`
takes it back) and returns a :class:`Change`, or raises :class:`CorrectionError` with a
message a user can read.

Corrections are data in the store (:mod:`topiclens.store.corrections`); a re-cluster reads
them (:func:`.keeping.holding`): pinned entries stay, merged and split topics hold their
entries, topics made from terms seed the clustering and gather the entries that use their
terms, hidden topics stay hidden.

:func:`split_topic`, :func:`new_topic`, :func:`hide_topic` and :func:`show_topic` read
entries' tokens and may fit or load a model (the clustering work is at the end of this
module): call them from a worker thread. Every function only goes through the store's own
methods and transactions, so it is safe in a worker beside the reader's other workers.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from topiclens.store.corrections import CorrectionConflict, Corrections, Plan, TopicCorrection
from topiclens.store.models import Topic
from topiclens.text import fit_cells, terminal_line, terminal_text

if TYPE_CHECKING:
    from topiclens.store.db import Store
    from topiclens.store.topics import Assignments

    from .estimator import Placement, TopicModel

MAX_SPLIT = 20  # parts a split may ask for
KEYWORDS = 10  # keywords kept for a topic a correction makes
QUOTED_CELLS = 48  # a title or name in a message (a toast is about 60 cells wide)


class CorrectionError(ValueError):
    """A correction that cannot be made; the message says why, for the user."""


class Change(NamedTuple):
    """What a correction did: one line for a toast or the command line, and the topic to
    show afterwards (None: none in particular)."""

    message: str
    topic_id: int | None


# --- checks -----------------------------------------------------------------------------


def clean_name(name: str) -> str:
    """``name`` without surrounding blanks; CorrectionError when it is empty or not one
    line of visible text."""
    for ch in name:
        if ch in "\n\r\t\v\f\u2028\u2029" or terminal_text(ch) != ch:
            what = "a line break" if ch in "\n\r\v\f\u2028\u2029" else "a control character"
            raise CorrectionError(
                f"a topic name is one line of text; this one holds {what} (U+{ord(ch):04X})"
            )
    name = name.strip()
    if not name:
        raise CorrectionError("a topic name cannot be empty")
    return name


def _quote(name: str) -> str:
    """A name or title for a one-line message: safe for a terminal, cut to QUOTED_CELLS."""
    return "'" + fit_cells(terminal_line(name), QUOTED_CELLS) + "'"


def _topic(store: Store, topic_id: int) -> Topic:
    """The visible topic ``topic_id``; CorrectionError when there is none."""
    topic = store.topic(topic_id)
    if topic is not None:
        return topic
    hidden = store.corrections().topics.get(topic_id)
    if hidden is not None and hidden.hidden:
        raise CorrectionError(
            f"topic {topic_id} ({_quote(hidden.label)}) is hidden; show it first "
            f"(topiclens topic show {topic_id})"
        )
    raise CorrectionError(f"no topic with id {topic_id}; `topiclens topics` lists them")


def _apply(store: Store, plan: Plan) -> None:
    """Write ``plan``; CorrectionError when a topic it read changed meanwhile."""
    try:
        store.apply_correction(plan)
    except CorrectionConflict as exc:
        raise CorrectionError(str(exc)) from None


# --- the corrections --------------------------------------------------------------------


def rename_topic(store: Store, topic_id: int, name: str) -> Change:
    """Give topic ``topic_id`` the user's ``name``; it survives every re-cluster."""
    name = clean_name(name)
    topic = _topic(store, topic_id)
    plan = Plan(f"renamed topic {topic_id} to {_quote(name)}", topic_id)
    plan.topics.append(topic._replace(name=name, user_named=True))
    shaped = store.corrections().topics.get(topic_id)
    if shaped is not None:
        plan.corrections.append(shaped._replace(name=name, label=name))
    store.apply_correction(plan)
    return Change(plan.message, topic_id)


def move_entry(store: Store, entry_id: str, topic_id: int) -> Change:
    """Move entry ``entry_id`` to topic ``topic_id`` and pin it there: every re-cluster
    leaves it in that topic."""
    entry = store.entry(entry_id)
    if entry is None:
        raise CorrectionError(f"no entry with id {entry_id!r}; `topiclens entries` lists them")
    topic = _topic(store, topic_id)
    plan = Plan(f"moved {_quote(entry.title)} to {_quote(topic.name)} (pinned there)", topic_id)
    plan.assign[entry_id] = (topic_id, 0.0, [])
    plan.pins[entry_id] = topic_id
    if topic_id not in store.corrections().topics:
        # the topic is known, across re-clusters, by the entries it has now
        entries = store.topic_entry_ids(topic_id)
        row = TopicCorrection(topic_id, "pin", None, topic.name, entries=entries)
        plan.corrections.append(row._replace(made_at=time.time()))
    store.apply_correction(plan)
    return Change(plan.message, topic_id)


def merge_topics(store: Store, topic_ids: Sequence[int], name: str | None = None) -> Change:
    """Merge the topics ``topic_ids`` into the first of them (named ``name``, else keeping
    its name); a re-cluster keeps their entries together."""
    ids = list(dict.fromkeys(topic_ids))
    if len(ids) < 2:
        raise CorrectionError("a merge needs two topics or more")
    given = None if name is None else clean_name(name)
    topics = [_topic(store, t) for t in ids]
    target, others = topics[0], topics[1:]
    corr = store.corrections()
    shaped = [corr.topics[t] for t in ids if t in corr.topics]
    kept_name = corr.topics[target.id].name if target.id in corr.topics else None
    if kept_name is None and target.user_named:
        kept_name = target.name
    final = given or target.name
    entries = {t.id: store.topic_entry_ids(t.id) for t in topics}
    held = [e for t in topics for e in entries[t.id]]
    held += [e for c in shaped if c.origin != "pin" for e in c.entries if e not in set(held)]
    plan = Plan(
        f"merged {', '.join(_quote(t.name) for t in others)} into {_quote(final)} "
        f"({sum(map(len, entries.values()))} entries)",
        target.id,
    )
    plan.topics.append(
        target._replace(
            name=final,
            user_named=bool(given or kept_name),
            keywords=_merged_keywords(topics),
            mixed=False,
        )
    )
    for t in others:
        for eid in entries[t.id]:
            plan.assign[eid] = (target.id, 0.0, [])
    plan.pins = {e: target.id for e, t in corr.pins.items() if t in ids[1:]}
    plan.drop_topics = [t.id for t in others]
    plan.expect = entries
    plan.drop_corrections = [c.topic_id for c in shaped if c.topic_id != target.id]
    terms = list(dict.fromkeys(term for c in shaped for term in c.terms))
    plan.corrections.append(
        TopicCorrection(
            target.id, "merge", given or kept_name, final, terms, held, [], False, time.time()
        )
    )
    _apply(store, plan)
    return Change(plan.message, target.id)


def _merged_keywords(topics: Sequence[Topic]) -> list[tuple[str, float]]:
    """The topics' keywords together, each weighed by its topic's size."""
    total: dict[str, float] = {}
    size = max(1, sum(t.size for t in topics))
    for t in topics:
        for word, weight in t.keywords:
            total[word] = total.get(word, 0.0) + weight * t.size / size
    best = sorted(total.items(), key=lambda kv: -kv[1])[:KEYWORDS]
    return [(w, round(v, 6)) for w, v in best]


def split_topic(store: Store, topic_id: int, k: int = 2) -> Change:
    """Cluster topic ``topic_id``'s entries into ``k`` topics (the largest keeps the id and
    a name the user gave it); a re-cluster keeps the parts apart. Slow: a worker's job."""
    if not 2 <= k <= MAX_SPLIT:
        raise CorrectionError(f"a topic splits into 2 to {MAX_SPLIT} parts, not {k}")
    topic = _topic(store, topic_id)
    entries = store.topic_entry_ids(topic_id)
    if len(entries) < k:
        raise CorrectionError(
            f"{_quote(topic.name)} holds {len(entries)} entries: too few to split in {k}"
        )
    parts = split_parts(store, entries, k)
    if len(parts) < k:
        raise CorrectionError(
            f"the entries of {_quote(topic.name)} use too few different words to split in {k}"
        )
    corr = store.corrections()
    pinned_here = {e for e, t in corr.pins.items() if t == topic_id}
    ids = [topic_id, *_fresh_ids(store, len(parts) - 1)]
    now = time.time()
    plan = Plan("", topic_id)
    names = []
    for i, (tid, part) in enumerate(zip(ids, parts, strict=True)):
        own = topic.user_named and i == 0
        name = topic.name if own else part.name
        names.append(name)
        members = [e for e in part.entries if i == 0 or e not in pinned_here]
        if i == 0:
            members += [e for p in parts[1:] for e in p.entries if e in pinned_here]
        plan.topics.append(
            Topic(tid, name, part.keywords, len(members), own, None, part.cohesion, False)
        )
        for eid in members:
            plan.assign[eid] = (tid, part.scores.get(eid, 0.0), part.terms.get(eid, []))
        given = name if own else None
        plan.corrections.append(
            TopicCorrection(tid, "split", given, name, [], members, [], False, now)
        )
    plan.message = f"split {_quote(topic.name)} into {', '.join(map(_quote, names))}"
    plan.expect = {topic_id: entries}
    _apply(store, plan)
    return Change(plan.message, topic_id)


def _fresh_ids(store: Store, n: int) -> list[int]:
    """``n`` topic ids no topic has had (nor a hidden one, nor a remembered name)."""
    corr = store.corrections()
    used = [t.id for t in store.topics()] + list(corr.topics) + list(corr.pins.values())
    high = max([0, *used, int(store.get_meta("clustering.max_topic_id") or 0)])
    return list(range(high + 1, high + 1 + n))


def split_terms(text: str) -> list[str]:
    """The terms in ``text``, split at commas (ASCII or Chinese) and 、, blanks trimmed."""
    for mark in "，、;；":
        text = text.replace(mark, ",")
    return [t.strip() for t in text.split(",") if t.strip()]


def new_topic(store: Store, name: str, terms: Sequence[str]) -> Change:
    """A topic of the user's, named ``name``, whose ``terms`` are its anchor: it gathers
    every entry that uses one of them (concept-aware: the terms go through the entries'
    tokenizer, so "KV cache" and "KV 缓存" are one), now and when later entries are
    imported, and seeds every re-cluster as anchors do. Entries pinned elsewhere stay
    there. Slow: a worker's job."""
    from .token_cache import term_tokens

    name = clean_name(name)
    terms = list(dict.fromkeys(t for term in terms for t in split_terms(term)))
    if not terms:
        raise CorrectionError("a topic made from terms needs at least one term")
    if not term_tokens(store, terms):
        raise CorrectionError(f"the terms {_terms(terms)} hold no word to look for")
    pins = store.corrections().pins
    found = [e for e in gather(store, terms) if e not in pins]
    if not found:
        raise CorrectionError(f"no entry uses {_terms(terms)}; no topic was made")
    (tid,) = _fresh_ids(store, 1)
    plan = Plan(f"made {_quote(name)} from {len(found)} entries using {_terms(terms)}", tid)
    keywords = [(t, 1.0) for t in terms[:KEYWORDS]]
    plan.topics.append(Topic(tid, name, keywords, len(found), True))
    plan.assign = {eid: (tid, 0.0, []) for eid in found}
    plan.corrections.append(
        TopicCorrection(tid, "terms", name, name, terms, found, keywords, False, time.time())
    )
    store.apply_correction(plan)
    return Change(plan.message, tid)


def _terms(terms: Sequence[str]) -> str:
    return ", ".join(_quote(t) for t in terms)


def hide_topic(store: Store, topic_id: int) -> Change:
    """Hide topic ``topic_id``: its entries go to their next-best topic, and it stays
    hidden across re-clusters until :func:`show_topic`."""
    topic = _topic(store, topic_id)
    if len(store.topics()) < 2:
        raise CorrectionError(f"{_quote(topic.name)} is the only topic; it cannot be hidden")
    entries = store.topic_entry_ids(topic_id)
    corr = store.corrections()
    plan = Plan("", None)
    plan.assign = next_best(store, entries, topic_id)
    plan.unpin = [e for e, t in corr.pins.items() if t == topic_id]
    plan.drop_topics = [topic_id]
    was = corr.topics.get(topic_id)
    held = list(dict.fromkeys([*entries, *(was.entries if was else ())]))
    name = was.name if was else (topic.name if topic.user_named else None)
    row = was or TopicCorrection(topic_id, "hide", name, made_at=time.time())
    keywords = list(topic.keywords)
    plan.corrections.append(
        row._replace(label=topic.name, entries=held, keywords=keywords, hidden=True)
    )
    went = Counter(t for t, _, _ in plan.assign.values()).most_common(1)
    plan.topic_id = went[0][0] if went else None
    moved = (
        "its entry went to its next-best topic"
        if len(entries) == 1
        else f"its {len(entries)} entries went to their next-best topics"
    )
    plan.message = f"hid {_quote(topic.name)}: {moved}"
    plan.expect = {topic_id: entries}
    _apply(store, plan)
    return Change(plan.message, plan.topic_id)


def show_topic(store: Store, topic_id: int) -> Change:
    """Show hidden topic ``topic_id`` again, with the entries it had (those not pinned
    elsewhere since)."""
    corr = store.corrections()
    row = corr.topics.get(topic_id)
    if row is None or not row.hidden:
        if store.topic(topic_id) is not None:
            raise CorrectionError(f"topic {topic_id} is not hidden")
        raise CorrectionError(f"no hidden topic with id {topic_id}; `topiclens topics` lists them")
    known = set(store.entry_ids())
    entries = [e for e in row.entries if e in known]
    if row.terms:
        entries += [e for e in gather(store, row.terms) if e not in set(entries)]
    entries = [e for e in entries if corr.pins.get(e, topic_id) == topic_id]
    if not entries:
        raise CorrectionError(f"no entry of {_quote(row.label)} is left to show")
    plan = Plan(f"{_quote(row.label)} is shown again, with {len(entries)} entries", topic_id)
    plan.topics.append(
        Topic(topic_id, row.label, list(row.keywords), len(entries), row.name is not None)
    )
    plan.assign = {eid: (topic_id, 0.0, []) for eid in entries}
    if row.origin == "hide":
        plan.drop_corrections = [topic_id]
    else:
        plan.corrections.append(row._replace(hidden=False))
    store.apply_correction(plan)
    return Change(plan.message, topic_id)


def hidden_topics(store: Store) -> list[Topic]:
    """The hidden topics, in the order they were hidden (size: the entries they hold)."""
    return [
        Topic(c.topic_id, c.label, list(c.keywords), len(c.entries), c.name is not None)
        for c in store.corrections().hidden()
    ]


def undo(store: Store) -> Change | None:
    """Take back the last correction still in the log; None when there is none."""
    from .saved import saved_names

    # what a topic is called again when the undo takes away a name the user gave it
    undone = store.undo_correction(saved_names(store))
    if undone is None:
        return None
    message = f"undone: {undone.message}"
    if not undone.topics_restored:
        message += " (topics re-clustered since: the topics follow at the next re-cluster)"
    shown = undone.topic_id
    return Change(message, shown if shown is not None and store.topic(shown) else None)


def corrections(store: Store) -> Corrections:
    """Every correction in force: the topics the user shaped (``topics``, by id: origin,
    name, terms, entries held, hidden) and the pinned entries (``pins``: entry id ->
    topic id). ``to_json()`` gives them as the JSON export and ``topics --json`` carry
    them."""
    return store.corrections()


# --- the clustering work: splitting, next-best topics, gathering by terms ---------------
# (each function imports what it needs: the reader imports this module as it starts, and
# the clustering's modules load when a correction first needs them)


class Part(NamedTuple):
    """One part of a split topic."""

    entries: list[str]
    name: str
    keywords: list[tuple[str, float]]
    cohesion: float | None
    scores: dict[str, float]  # entry id -> cosine to the part's centre
    terms: dict[str, list[str]]  # entry id -> the terms tying it to the part


def split_parts(store: Store, entries: Sequence[str], k: int) -> list[Part]:
    """``entries`` clustered into at most ``k`` parts (fewer when fewer differ), largest
    first: a model fitted on them alone, with the anchors, the cap off."""
    from .anchors import load_anchors
    from .estimator import TopicModel
    from .naming import topic_name
    from .token_cache import entry_token_ids, tokenized_anchors

    tids, _ = entry_token_ids(store, entries)
    model = TopicModel(
        k, anchors=tokenized_anchors(store, load_anchors()), max_share=None, random_state=0
    )
    model.fit(None, tokens=tids.counts())
    labels = model.labels_.tolist()
    parts = []
    for c in range(model.n_topics_):
        rows = [i for i, label in enumerate(labels) if label == c]
        members = [entries[i] for i in rows]
        parts.append(
            Part(
                members,
                # a part the user asked for is no mixed bag: named from its own keywords
                topic_name(model.keywords_[c] and [w for w, _ in model.keywords_[c]])
                if model.mixed_[c]
                else model.topic_names_[c],
                [(w, round(v, 6)) for w, v in model.keywords_[c]],
                model.cohesion_[c],
                {entries[i]: float(model.scores_[i]) for i in rows},
                {entries[i]: model.terms_[i] for i in rows},
            )
        )
    return sorted(parts, key=lambda p: -len(p.entries))


def next_best(store: Store, entries: Sequence[str], leaving: int) -> Assignments:
    """Where each of ``entries`` goes when topic ``leaving`` is hidden: the topic the
    saved model places it in among the others, the nearest with room for it (no topic
    takes more of hidden topics' entries than it has entries of its own, as in a fit:
    :func:`_with_room`); without a usable model, the topic most of its similar entries
    are in, else the largest other topic."""
    from .saved import saved_model
    from .token_cache import entry_tokens

    topics = [t for t in store.topics() if t.id != leaving]
    if not entries or not topics:
        return {}
    live = {t.id for t in topics}
    saved = saved_model(store)
    if saved is not None:
        among = [tid in live for tid in saved.topic_ids]
        if any(among):
            docs, _ = entry_tokens(store, entries)
            texts = [e.text() for e in store.entries(entries)]
            placed = saved.model.place(texts, tokens=docs, among=among)
            chosen = _with_room(store, saved.model, saved.topic_ids, placed, among)
            if (chosen != placed.labels).any():
                placed = saved.model.place(texts, tokens=docs, among=among, topics=chosen)
            return {
                eid: (saved.topic_ids[c], score, terms)
                for eid, c, score, terms in zip(
                    entries, placed.labels.tolist(), placed.scores, placed.terms, strict=True
                )
            }
    assigned = store.assignments()
    largest = max(topics, key=lambda t: t.size).id
    out: Assignments = {}
    for eid in entries:
        near = Counter(assigned.get(other) for other, _ in store.similar(eid))
        best = [t for t, _ in near.most_common() if t in live]
        out[eid] = (best[0] if best else largest, 0.0, [])
    return out


def _with_room(
    store: Store, model: TopicModel, topic_ids: Sequence[int], placed: Placement, among: Any
) -> Any:
    """Each placed entry's topic (an index of ``topic_ids``, of those ``among`` allows):
    the nearest that has room, none holding more entries of hidden topics (these and
    those hidden before) than entries of its own (:func:`.holding.fill`)."""
    import numpy as np

    from .holding import fill

    assigned = store.assignments()
    sizes = {t.id: t.size for t in store.topics()}
    earlier = Counter(assigned.get(e) for c in store.corrections().hidden() for e in c.entries)
    room = np.asarray(
        [
            sizes.get(tid, 0) - 2 * earlier.get(tid, 0) if ok else 0
            for tid, ok in zip(topic_ids, among, strict=True)
        ]
    )
    sims = np.asarray(placed.vectors @ model.cluster_centers_.T, dtype=np.float64)
    sims[:, ~np.asarray(among, dtype=bool)] = -np.inf
    return fill(sims, np.maximum(room, 0))


def gather(store: Store, terms: Sequence[str], ids: Sequence[str] | None = None) -> list[str]:
    """The ids of the entries (of ``ids``, else all) that centrally discuss ``terms``
    (:class:`.membership.TermIndex`, over these entries), in the order of ``ids``."""
    from .membership import TermIndex
    from .token_cache import entry_token_ids, term_tokens

    ids = store.entry_ids() if ids is None else list(ids)
    tokens = term_tokens(store, terms)
    if not ids or not tokens:
        return []
    tids, _ = entry_token_ids(store, ids)
    return [ids[i] for i in TermIndex.of_entries(tids).central(tokens)]


__all__ = [
    "Change",
    "CorrectionError",
    "Corrections",
    "TopicCorrection",
    "clean_name",
    "corrections",
    "hidden_topics",
    "hide_topic",
    "merge_topics",
    "move_entry",
    "new_topic",
    "rename_topic",
    "show_topic",
    "split_terms",
    "split_topic",
    "undo",
]
