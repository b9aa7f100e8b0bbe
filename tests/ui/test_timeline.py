from meddiag.schema import NodeEvent
from meddiag.ui.timeline import overlap_seconds, timeline_figure

from .sample_case import sample_result


def test_timeline_has_one_trace_per_channel_with_real_durations():
    fig = timeline_figure(sample_result().events)
    spec = fig.to_dict()
    names = [t["name"] for t in spec["data"]]
    assert names == ["parent", "semantic", "relational"]
    semantic = spec["data"][1]
    assert list(semantic["base"]) == [0.06, 0.20]
    assert [round(x, 2) for x in semantic["x"]] == [0.14, 0.10]


def test_overlap_measures_concurrent_channels_only():
    events = sample_result().events
    assert abs(overlap_seconds(events) - (0.28 - 0.06)) < 1e-9
    sequential = [
        NodeEvent(node="a", channel="semantic", start=0.0, end=1.0),
        NodeEvent(node="b", channel="relational", start=1.5, end=2.0),
    ]
    assert overlap_seconds(sequential) == 0.0
    assert overlap_seconds(sequential[:1]) == 0.0
