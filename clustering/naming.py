"""What each topic is about, in a reader's words: class-based TF-IDF keywords, names,
and the terms that tie each entry to its topic.

Feature-only bigrams and pieces of longer words shape the clusters but never describe
them: their class weights are zeroed before anything is shown.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from topiclens.text import is_han

from .tokenize import BIGRAM_MARK, Vocabulary

TOP_KEYWORDS = 10  # keywords shown per topic
TOP_TERMS = 5  # terms shown per entry
TOP_WEIGHTS = 50  # weighted tokens kept per topic, to tie new entries to it


@dataclass(slots=True)
class Naming:
    """Each topic's name, keywords (display term, weight), the weights of its top
    tokens, and the class weights (k, V) the keywords come from."""

    names: list[str]
    keywords: list[list[tuple[str, float]]]
    weights: list[dict[str, float]]
    class_weights: Any


def name_topics(
    counts: Any,
    labels: Any,
    k: int,
    vocab_tokens: list[str],
    vocab: Vocabulary,
    anchor_names: Sequence[str | None],
    mixed: Sequence[bool] | None = None,
    anchor_tokens: Collection[str] = (),
    texts: Sequence[str] | None = None,
    reserved: Collection[str] = (),
) -> Naming:
    """Name the ``k`` clusters of ``labels``: a cluster an anchor names takes the
    anchor's name (``anchor_names[c]``); a ``mixed`` one reads "Mixed: a, b, c" from its
    keywords; the others are named by their first two nameable keywords ("A & B"),
    never one of the ``anchor_tokens`` (terms of the anchors that name topics) nor a term
    a larger topic's name already uses, nor reading as one of the ``reserved`` (anchor)
    names. Given the ``texts``, a Latin term is shown as
    they write it most often ("vLLM", "TensorRT", "CPU"), not as its folded token."""
    import numpy as np

    per_class = class_counts(counts, labels, k)
    ctf = class_tfidf(per_class)
    # bigrams shape clusters but never name them, nor tie an entry to its topic
    marked = [j for j, t in enumerate(vocab_tokens) if t.startswith(BIGRAM_MARK)]
    if marked:
        ctf[:, marked] = 0.0
    # nor do pieces of longer words, where the longer word is what the topic says
    ctf[fragments(vocab_tokens, per_class)] = 0.0
    mixed = mixed or [False] * k
    taken = [n for n in anchor_names if n]
    keywords: list[list[tuple[str, float]]] = []
    weights: list[dict[str, float]] = []
    nameable: list[list[str]] = []
    tops = [np.argsort(-ctf[c], kind="stable")[: TOP_KEYWORDS * 4] for c in range(k)]
    shown = {vocab_tokens[j] for order in tops for j in order}
    forms = surface_forms(texts, [t for t in shown if t not in vocab.concepts])
    for c in range(k):
        ranked = [(vocab_tokens[j], float(ctf[c, j])) for j in tops[c] if ctf[c, j] > 0]
        weights.append(dict(ranked[:TOP_WEIGHTS]))
        keywords.append(distinct_terms(ranked, vocab, TOP_KEYWORDS, forms))
        # a topic named from its terms never takes an anchor's term another topic is
        # named by: "Interconnects" beside "Communication & NVSwitch" tells a reader nothing
        own = [(t, w) for t, w in ranked if t not in anchor_tokens and readable(t, vocab)]
        nameable.append([label for label, _ in distinct_terms(own, vocab, TOP_KEYWORDS, forms)])
    names: list[str] = [""] * k
    sizes = np.bincount(labels, minlength=k)
    # larger topics choose first; a smaller one sharing a term takes its next terms
    for c in sorted(range(k), key=lambda c: (-int(sizes[c]), c)):
        if anchor_names[c]:
            names[c] = anchor_names[c] or ""
            continue
        fresh = [w for w in nameable[c] if not any(near_duplicate(w, t) for t in taken)]
        words = fresh or nameable[c] or [w for w, _ in keywords[c]]
        if mixed[c]:
            shown = nameable[c] + [w for w, _ in keywords[c] if w not in nameable[c]]
            names[c] = "Mixed: " + ", ".join(shown[:3] or ["no terms"])
        else:
            names[c] = topic_name(words)
            # an anchor's name is the anchor's to give: read as one, it would claim that
            # the topic earned it
            if names[c].casefold() in {r.casefold() for r in reserved} and len(words) > 2:
                names[c] = topic_name([words[0], words[2]])
        taken.extend(words[:2])
    return Naming(unique_names(names), keywords, weights, ctf)


def readable(token: str, vocab: Vocabulary) -> bool:
    """Whether a term reads as a name: a concept, a term with Latin letters or digits
    (product and model names), or a Chinese term of three or more characters; not a
    common two-character word such as 编程 or 模型."""
    if token in vocab.concepts:
        return True
    if not is_han(token):
        return True
    return len(token) >= 3


def class_counts(counts: Any, labels: Any, k: int) -> Any:
    """Each term's count in each topic (k, V), float64."""
    import numpy as np
    import scipy.sparse as sp

    onehot = sp.csr_matrix(
        (np.ones(len(labels), dtype=np.float32), (labels, np.arange(len(labels)))),
        shape=(k, len(labels)),
    )
    return np.asarray((onehot @ counts).todense(), dtype=np.float64)


def class_tfidf(per_class: Any) -> Any:
    """Class-based TF-IDF (k, V) from each term's count in each topic: a term's share
    of a topic's words, times log(1 + average words per topic / the term's count over
    all topics)."""
    import numpy as np

    totals = per_class.sum(axis=1, keepdims=True)
    tf = per_class / np.maximum(totals, 1)
    freq = per_class.sum(axis=0)
    avg = totals.mean()
    idf = np.log1p(avg / np.maximum(freq, 1))
    return (tf * idf).astype(np.float32)


def fragments(vocab_tokens: Sequence[str], per_class: Any) -> Any:
    """(k, V) booleans: where a short Chinese term is, in that topic, mostly a piece of
    a longer term the tokenizer also gave (its dictionary words inside a long word:
    分布式 also says 分布 and 布式; 确定性 says 定性). It is one when a longer term of
    the topic that holds it is used at least half as often there. Such pieces help to
    cluster but make poor keywords: a topic reading "分布, 布式" says less than one
    reading "分布式"."""
    import numpy as np

    index = {t: j for j, t in enumerate(vocab_tokens)}
    inside: dict[int, list[int]] = {}
    for j, term in enumerate(vocab_tokens):
        if len(term) < 3 or not is_han(term):
            continue
        for n in (2, 3):
            for i in range(len(term) - n + 1 if len(term) > n else 0):
                part = index.get(term[i : i + n])
                if part is not None:
                    inside.setdefault(part, []).append(j)
    out = np.zeros(per_class.shape, dtype=bool)
    for part, longer in inside.items():
        out[:, part] = per_class[:, longer].max(axis=1) * 2 >= per_class[:, part]
    return out & (per_class > 0)


def near_duplicate(a: str, b: str) -> bool:
    """ "KV / KV缓存 / 缓存" is one idea: one term inside the other, spaces and case aside."""
    x, y = a.replace(" ", "").lower(), b.replace(" ", "").lower()
    return x in y or y in x


def distinct_terms(
    ranked: Sequence[tuple[str, float]],
    vocab: Vocabulary,
    limit: int,
    forms: Mapping[str, str] | None = None,
) -> list[tuple[str, float]]:
    """Up to ``limit`` of the ``ranked`` (token, weight) as display terms (``forms``
    first, then the vocabulary's), best first, leaving out any that is a near duplicate
    of one already taken."""
    out: list[tuple[str, float]] = []
    for token, weight in ranked:
        label = (forms or {}).get(token) or vocab.display(token)
        if any(near_duplicate(label, taken) for taken, _ in out):
            continue
        out.append((label, weight))
        if len(out) >= limit:
            break
    return out


def surface_forms(texts: Sequence[str] | None, tokens: Collection[str]) -> dict[str, str]:
    """For each lower-case Latin token (``vllm``), the form the ``texts`` write it in most
    often when that form has capitals (``vLLM``), capitals winning a tie; one regex pass
    over the texts. A plural counts for its token, as the tokenizer made it singular: a
    text writing "models" fifty times and "MODEL" once writes ``model`` in lower case."""
    import re
    from collections import Counter

    latin = sorted((t for t in tokens if t.isascii() and t.islower() and len(t) > 1), key=len)
    if not texts or not latin:
        return {}
    pattern = re.compile(
        r"(?<![A-Za-z0-9])("
        + "|".join(re.escape(t) for t in reversed(latin))
        + r")s?(?![A-Za-z0-9])",
        re.IGNORECASE,
    )
    seen: Counter[str] = Counter()
    for text in texts:
        seen.update(pattern.findall(text))
    total: Counter[str] = Counter()
    for form, count in seen.items():
        total[form.lower()] += count
    best: dict[str, tuple[int, bool, str]] = {}
    for form, count in seen.items():
        # a capital only at the start may just start a sentence: it needs most uses
        if form[1:].islower() and count * 2 <= total[form.lower()]:
            continue
        # the commonest form; of two as common, the one with capitals ("CPU", "cpu")
        rank = (count, form != form.lower(), form)
        best[form.lower()] = max(best.get(form.lower(), rank), rank)
    return {t: form for t, (_, _, form) in best.items() if form != t}


def topic_name(words: Sequence[str]) -> str:
    """A short name from a topic's distinctive terms: the first two, "A & B", each as
    the texts write it ("vLLM", "CPU", "cache"); only the name's first letter is made a
    capital, where the first term is all lower case ("Cache & CPU")."""
    if not words:
        return "Miscellaneous"
    first = words[0]
    if first.islower():
        first = first[:1].upper() + first[1:]
    return " & ".join([first, *words[1:2]])


def unique_names(names: list[str]) -> list[str]:
    """The names, a second "X" reading "X (2)", a third "X (3)"."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def entry_terms(
    tfidf: Any,
    labels: Any,
    topic_weights: Any,
    vocab_tokens: list[str],
    vocab: Vocabulary,
    top: int = TOP_TERMS,
) -> list[list[str]]:
    """The terms tying each entry (row of ``tfidf``) to its topic ``labels[i]``: its
    TF-IDF weight times the topic's, ``topic_weights[c]`` (a dense row of V), best first
    and distinct."""
    import numpy as np

    out: list[list[str]] = [[] for _ in range(tfidf.shape[0])]
    # column -> (display label, its compact form for the near-duplicate test), made once
    labels_of: dict[int, tuple[str, str]] = {}
    rows = tfidf.tocsr()
    sizes = np.diff(rows.indptr)
    labels = np.asarray(labels)
    order = np.argsort(labels, kind="stable")  # the rows topic by topic, each in row order
    for members in np.split(order, np.flatnonzero(np.diff(labels[order])) + 1):
        if not len(members):
            continue
        c = int(labels[members[0]])
        # the topic's rows' values times its weights, row after row (what multiplying the
        # rows picked out of the matrix gives, without making a matrix for each topic):
        # the positions of its rows' values taken once, not a pass over every value
        counts = sizes[members]
        ends = np.cumsum(counts)
        at = np.arange(ends[-1]) + np.repeat(rows.indptr[members] - (ends - counts), counts)
        in_topic = rows.indices[at]
        weighed = rows.data[at] * np.asarray(topic_weights[c]).reshape(-1)[in_topic]
        # only the positive products can be picked (a topic weighs few terms): the rest are
        # left out before the rows are sorted, the positive ones kept in their order
        positive = weighed > 0
        row_of = np.repeat(np.arange(len(members)), counts)[positive]
        values = weighed[positive]
        # each row's values best first, ties in their order (a stable sort's): every row
        # sorted at once
        best_first = np.lexsort((-values, row_of))
        # plain lists: per-row numpy calls on rows of ~100 values cost more than the work
        cols = in_topic[positive][best_first].tolist()
        counted = np.bincount(row_of, minlength=len(members))
        ptr = np.concatenate(([0], np.cumsum(counted))).tolist()
        docs = members.tolist()
        for r in np.flatnonzero(counted).tolist():
            doc = docs[r]
            picked: list[str] = []
            compact: list[str] = []
            for col in cols[ptr[r] : ptr[r + 1]]:
                got = labels_of.get(col)
                if got is None:
                    label = vocab.display(vocab_tokens[col])
                    got = labels_of[col] = (label, label.replace(" ", "").lower())
                label, x = got
                # near_duplicate, inlined: one term inside the other
                for y in compact:
                    if x in y or y in x:
                        break
                else:
                    picked.append(label)
                    compact.append(x)
                    if len(picked) >= top:
                        break
            out[doc] = picked
    return out
