"""TopicModel as scikit-learn's own tools see it: its checks, pipelines, cloning, tags."""

from __future__ import annotations

import inspect
import re

import pytest
from sklearn.base import clone, is_clusterer
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.utils import estimator_checks as checks
from sklearn.utils.validation import check_is_fitted
from topiclens.clustering import TopicModel


def _texts() -> list[str]:
    """Three clear subjects, twelve texts each, in both languages."""
    a = [f"rANS 熵编码 entropy coding and lossless compression, note {i}" for i in range(12)]
    b = [f"NVLink 与 NVSwitch 互联 interconnect bandwidth, rack {i}" for i in range(12)]
    c = [f"投机解码 speculative decoding with a draft model, trial {i}" for i in range(12)]
    return a + b + c


def _model() -> TopicModel:
    return TopicModel(3, max_share=None, random_state=0)


@pytest.fixture(scope="module")
def fitted() -> TopicModel:
    return _model().fit(_texts())


# scikit-learn's API checks that need no numeric data. The others fit on numeric arrays
# (make_blobs, random floats), which a text estimator cannot take: TopicModel's tags say
# it takes strings, not a 2-d array, as CountVectorizer's do, and check_estimator then
# runs no check at all. What those checks ask (fit returns self, leaves the parameters
# as given, adds only fitted attributes, is idempotent, check_is_fitted after fit) is
# asked on texts by the tests below.
API_CHECKS = [
    checks.check_estimator_cloneable,
    checks.check_estimator_tags_renamed,
    checks.check_valid_tag_types,
    checks.check_estimator_repr,
    checks.check_no_attributes_set_in_init,
    checks.check_estimators_unfitted,  # predict on an unfitted model: NotFittedError
    checks.check_do_not_raise_errors_in_init_or_set_params,
    checks.check_mixin_order,
    checks.check_parameters_default_constructible,
    checks.check_get_params_invariance,
    checks.check_set_params,
]


@pytest.mark.parametrize("check", API_CHECKS, ids=lambda c: c.__name__)
def test_scikit_learns_api_checks(check):
    check("TopicModel", TopicModel())


def test_tags_say_a_clusterer_of_texts():
    from sklearn.utils import get_tags

    tags = get_tags(TopicModel())
    assert is_clusterer(TopicModel()) and tags.estimator_type == "clusterer"
    assert tags.input_tags.string and not tags.input_tags.two_d_array
    assert not tags.target_tags.required and tags.requires_fit


def test_signatures_are_scikit_learns():
    for method in (TopicModel.fit, TopicModel.fit_predict):
        assert list(inspect.signature(method).parameters)[1:3] == ["X", "y"], method
    assert list(inspect.signature(TopicModel.predict).parameters)[1] == "X"


def test_fit_keeps_the_parameters_and_adds_only_fitted_attributes():
    model = _model()
    before = dict(vars(model))
    params = clone(model).get_params()
    model.fit(_texts())
    assert model.get_params() == params
    assert {k: vars(model)[k] for k in before} == before
    added = set(vars(model)) - set(before)
    assert added and all(a.endswith("_") and not a.startswith("_") for a in added), added


def test_the_attributes_section_lists_every_fitted_attribute(fitted: TopicModel):
    doc = inspect.getdoc(TopicModel) or ""
    section = doc.split("Attributes\n----------\n", 1)[1]
    listed = set(re.findall(r"^(\w+_) :", section, flags=re.MULTILINE))
    assert listed == {a for a in vars(fitted) if a.endswith("_")}


def test_check_is_fitted_before_and_after_fit_and_load(fitted: TopicModel):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        check_is_fitted(_model())
    with pytest.raises(NotFittedError, match="not fitted yet"):
        _model().predict(_texts())
    check_is_fitted(fitted)
    check_is_fitted(TopicModel.from_bytes(fitted.to_bytes()))


def test_fit_predict_is_the_fits_labels(fitted: TopicModel):
    labels = _model().fit_predict(_texts())
    assert labels.tolist() == fitted.labels_.tolist()
    # the three subjects are three topics, whichever numbers they got
    groups = [set(labels[i : i + 12].tolist()) for i in (0, 12, 24)]
    assert all(len(g) == 1 for g in groups) and len(set.union(*groups)) == 3


def test_a_pipeline_fits_and_predicts_on_strings(fitted: TopicModel):
    texts = _texts()
    pipe = make_pipeline(_model())
    assert is_clusterer(pipe)
    pipe.fit(texts)
    check_is_fitted(pipe)
    assert pipe.predict(texts).tolist() == fitted.predict(texts).tolist()
    assert pipe.fit_predict(texts).tolist() == fitted.labels_.tolist()
    # tokens made elsewhere (a cache) reach the model as its fit parameter
    from topiclens.clustering.tokenize import default_tokenizer

    docs = [default_tokenizer()(t) for t in texts]
    by_tokens = make_pipeline(_model()).fit(None, topicmodel__tokens=docs)
    assert by_tokens[-1].labels_.tolist() == _model().fit(None, tokens=docs).labels_.tolist()


def test_clone_is_unfitted_with_the_same_parameters(fitted: TopicModel):
    twin = clone(fitted)
    assert twin.get_params() == fitted.get_params()
    with pytest.raises(NotFittedError):
        check_is_fitted(twin)
    assert twin.fit(_texts()).labels_.tolist() == fitted.labels_.tolist()
